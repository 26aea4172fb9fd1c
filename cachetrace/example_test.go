package cachetrace_test

import (
	"fmt"
	"log"
	"os"

	"github.com/cachebench/cachebench/cachetrace"
)

// A service records its cache's requests (every one here; Rate: 0.01
// keeps one key in a hundred), and cachebench replays the file.
func Example() {
	dir, err := os.MkdirTemp("", "traffic")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	rec, err := cachetrace.New(cachetrace.Options{Dir: dir, Name: "api"})
	if err != nil {
		log.Fatal(err)
	}
	for i := range 10000 {
		key := fmt.Appendf(nil, "user:%d", i*i%1000) // the service's own keys
		rec.Record(key, 512)                         // on every cache request
	}
	if err := rec.Close(); err != nil {
		log.Fatal(err)
	}
	s := rec.Stats()
	fmt.Printf("%d requests recorded in %d file\n", s.Written, len(s.Files))
	// Then: cachebench hitratio --trace DIR/api.000001.oracleGeneral.zst
	// Output: 10000 requests recorded in 1 file
}
