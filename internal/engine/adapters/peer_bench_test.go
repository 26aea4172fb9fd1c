package adapters_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	_ "github.com/cachebench/cachebench/internal/engine/adapters"
	"github.com/cachebench/cachebench/internal/engine/cputime"
)

// The peer benchmarks run shardcache and the caches it is measured
// against through their cachebench adapters, with the same keys, order
// and budget, so that their ratios come from one run of one binary:
//
//	go test -run X -bench Peer -benchtime 2000000x ./internal/engine/adapters/
//
// The request keys and their values are separate copies laid out in
// access order, so the loop adds no cache miss of its own. They live here,
// beside the adapters, rather than in package shardcache, whose tests
// would otherwise make every module that imports shardcache load every
// adapter's library.

const peerKeys = 1 << 20

var peerData struct {
	reqs, vals [][]byte // keys and their values, in access order
}

func peerSetup() {
	if peerData.reqs != nil {
		return
	}
	order := make([]uint32, peerKeys)
	for i := range order {
		order[i] = uint32(i)
	}
	rand.New(rand.NewPCG(1, 1)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	kbuf := make([]byte, 0, peerKeys*12)
	vbuf := make([]byte, 0, peerKeys*12)
	reqs := make([][]byte, peerKeys)
	vals := make([][]byte, peerKeys)
	for i, k := range order {
		start := len(kbuf)
		kbuf = fmt.Appendf(kbuf, "key_%d", k)
		reqs[i] = kbuf[start:len(kbuf):len(kbuf)]
		start = len(vbuf)
		vbuf = fmt.Appendf(vbuf, "val_%d", k)
		vals[i] = vbuf[start:len(vbuf):len(vbuf)]
	}
	peerData.reqs, peerData.vals = reqs, vals
}

var peerNames = []string{"shardcache", "map", "fastcache", "bigcache", "freecache"}

// peerOptions is cachebench's insert-lookup budget for 1M keys key_%d →
// val_%d: 48 bytes of overhead per entry on top of ~20 bytes of data,
// with 2× headroom.
var peerOptions = engine.Options{Entries: peerKeys, MemoryBytes: peerKeys * (20 + 48) * 2, MaxValueSize: 16}

func newPeer(b *testing.B, name string) engine.Adapter {
	b.Helper()
	f, err := engine.Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	a, err := f.New(peerOptions)
	if err != nil {
		b.Fatal(err)
	}
	return a
}

func fillPeer(b *testing.B, a engine.Adapter) {
	b.Helper()
	for i, k := range peerData.reqs {
		if err := a.Set(k, peerData.vals[i]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPeerGet: one random lookup of 1M present keys at a time.
func BenchmarkPeerGet(b *testing.B) {
	peerSetup()
	for _, name := range peerNames {
		b.Run(name, func(b *testing.B) {
			a := newPeer(b, name)
			defer a.Close()
			fillPeer(b, a)
			reqs := peerData.reqs
			buf := make([]byte, 0, 64)
			hits := 0
			b.ReportAllocs()
			b.ResetTimer()
			t := cputime.Start()
			for i := 0; b.Loop(); i++ {
				var ok bool
				buf, ok, _ = a.Get(buf[:0], reqs[i&(peerKeys-1)])
				if ok {
					hits++
				}
			}
			b.StopTimer()
			t.Report(b, b.N, "op")
			if hits < b.N*9/10 {
				b.Fatalf("%d hits of %d", hits, b.N)
			}
		})
	}
}

// BenchmarkPeerFill: a fresh cache filled with 1M keys; ns/key (New
// included; new-ms is its share), and
// cpu-ns/key, the filling thread's CPU time (page faults and madvise
// calls included, the garbage collector's other threads not), which a
// shared machine's load leaves alone.
func BenchmarkPeerFill(b *testing.B) {
	peerSetup()
	for _, name := range peerNames {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var cpu int64
			var created time.Duration
			for b.Loop() {
				t0 := time.Now()
				a := newPeer(b, name)
				created += time.Since(t0)
				t := cputime.Start()
				fillPeer(b, a)
				cpu += t.Stop()
				b.StopTimer()
				a.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/peerKeys, "ns/key")
			b.ReportMetric(float64(cpu)/float64(b.N)/peerKeys, "cpu-ns/key")
			// New's own time, inside ns/key: a cache may do work up
			// front (shardcache backs its huge index there).
			b.ReportMetric(float64(created.Microseconds())/1000/float64(b.N), "new-ms")
		})
	}
}
