// Command record shows how a Go service records its own cache traffic
// with package cachetrace: it makes a synthetic request stream (zipf
// popular keys with sizes, standing in for a service's requests), records
// it into DIR, and prints the cachebench command that replays it.
//
//	go run ./examples/record -dir /tmp/traffic
//
// A real service calls rec.Record(key, size) where it asks its cache for
// key, and rec.Close() when it stops.
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/cachebench/cachebench/cachetrace"
)

func main() {
	if err := run(os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(2)
	}
}

func run(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	dir := fs.String("dir", ".", "directory to record into (it must exist)")
	requests := fs.Int("requests", 200_000, "requests to make")
	keys := fs.Uint64("keys", 20_000, "distinct keys")
	rate := fs.Float64("rate", 1, "fraction of keys recorded, by key hash")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *requests < 1 || *keys < 1 {
		return fmt.Errorf("-requests and -keys must be at least 1")
	}
	// Lossless because this loop does nothing but record, and would
	// outrun the writer; a service leaves it false, so that a slow disk
	// drops records instead of slowing requests.
	rec, err := cachetrace.New(cachetrace.Options{Dir: *dir, Name: "traffic", Rate: *rate, Lossless: true})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, *keys-1)
	key := make([]byte, 0, 32)
	for range *requests {
		k := zipf.Uint64()
		key = fmt.Appendf(key[:0], "session:%d", k)
		rec.Record(key, 200+int(k%37)*100) // the service's cache lookup
	}
	if err := rec.Close(); err != nil {
		return err
	}
	s := rec.Stats()
	fmt.Fprintf(w, "recorded %d of %d requests (%d dropped) in %s\n", s.Written, *requests, s.Dropped, strings.Join(s.Files, ", "))
	trace := "--trace " + s.Files[0]
	if len(s.Files) > 1 {
		trace = "--chain " + strings.Join(s.Files, ",")
	}
	fmt.Fprintf(w, "replay them:\n  cachebench hitratio %s --adapters lru,sieve,s3fifo,otter,theine --capacity 0.01,0.05,0.2\n", trace)
	return nil
}
