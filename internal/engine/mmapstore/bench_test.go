package mmapstore

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

const benchKeys = 1_000_000

// benchFixture is built once per test binary: 1M keys key_%d → val_%d,
// their values, a shuffled lookup order, and the store file.
var benchFixture struct {
	once       sync.Once
	dir, path  string
	keys, vals [][]byte
	order      []int
	inOrder    [][]byte // keys[order[i]] for each i, their bytes laid out in that order
	err        error
}

func fixture(b *testing.B) (*Store, [][]byte, []int) {
	f := &benchFixture
	f.once.Do(func() {
		f.dir, f.err = os.MkdirTemp("", "mmapstore-bench-")
		if f.err != nil {
			return
		}
		f.keys = make([][]byte, benchKeys)
		f.vals = make([][]byte, benchKeys)
		for i := range benchKeys {
			f.keys[i] = fmt.Appendf(nil, "key_%d", i)
			f.vals[i] = fmt.Appendf(nil, "val_%d", i)
		}
		f.order = rand.New(rand.NewPCG(1, 1)).Perm(benchKeys)
		// The request keys in access order, so that reading the next
		// key is a sequential read, not a miss of the harness's own.
		buf := make([]byte, 0, 10*benchKeys)
		for _, i := range f.order {
			buf = append(buf, f.keys[i]...)
		}
		for _, i := range f.order {
			n := len(f.keys[i])
			f.inOrder = append(f.inOrder, buf[:n:n])
			buf = buf[n:]
		}
		f.path = filepath.Join(f.dir, "bench.cache")
		_, f.err = Build(f.path, pairs(f.keys, f.vals), BuildOptions{})
	})
	if f.err != nil {
		b.Fatal(f.err)
	}
	s, err := Open(f.path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, f.keys, f.order
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchFixture.dir != "" {
		os.RemoveAll(benchFixture.dir)
	}
	os.Exit(code)
}

// BenchmarkGet looks the 1M keys up in shuffled order, one per op, the
// request keys laid out in access order: store is the file, map a Go
// map on the same keys (the reference), and cached a 1,000-key file
// that stays in the CPU caches (what a lookup costs without its miss).
func BenchmarkGet(b *testing.B) {
	s, keys, _ := fixture(b)
	ks := benchFixture.inOrder
	small, smallKeys := cachedStore(b)
	m := make(map[string][]byte, len(keys))
	for i, k := range keys {
		m[string(k)] = benchFixture.vals[i]
	}
	get := func(b *testing.B, s *Store, ks [][]byte) {
		for _, k := range ks { // fault the file in: a warm-page-cache figure
			s.Get(k)
		}
		b.ResetTimer()
		n := 0
		for i := 0; b.Loop(); i++ {
			if v, ok := s.Get(ks[i%len(ks)]); ok {
				n += len(v)
			}
		}
		if n == 0 {
			b.Fatal("no hits")
		}
	}
	b.Run("store", func(b *testing.B) { get(b, s, ks) })
	b.Run("map", func(b *testing.B) {
		n := 0
		for i := 0; b.Loop(); i++ {
			n += len(m[string(ks[i%len(ks)])])
		}
		if n == 0 {
			b.Fatal("no hits")
		}
	})
	b.Run("cached", func(b *testing.B) { get(b, small, smallKeys) })
}

// cachedStore builds the last 1,000 pairs of the fixture (10-byte keys,
// like most of the 1M) into a file small enough to stay in the CPU
// caches: what a lookup costs without its miss.
func cachedStore(b *testing.B) (*Store, [][]byte) {
	keys, vals := benchFixture.keys[benchKeys-1000:], benchFixture.vals[benchKeys-1000:]
	return mustOpen(b, build(b, b.TempDir(), "small.cache", pairs(keys, vals), BuildOptions{})), keys
}

// BenchmarkGetBatch looks the same keys up 64 per GetBatch call; ns/op is
// per key. Compare with BenchmarkGet/store (cached with
// BenchmarkGet/cached: the batch's own work per key without misses).
func BenchmarkGetBatch(b *testing.B) {
	s, _, _ := fixture(b)
	small, smallKeys := cachedStore(b)
	var cached [][]byte
	for len(cached) < 1<<16 {
		cached = append(cached, smallKeys...)
	}
	for _, c := range []struct {
		name string
		s    *Store
		ks   [][]byte
	}{{"store", s, benchFixture.inOrder}, {"cached", small, cached}} {
		ks := c.ks
		b.Run(c.name, func(b *testing.B) {
			hits := 0
			fn := func(_ int, v []byte, ok bool) {
				if ok {
					hits++
				}
			}
			c.s.GetBatch(ks, fn)
			b.ResetTimer()
			const batch = 64
			pos := 0
			for done := 0; done < b.N; done += batch {
				if pos+batch > len(ks) {
					pos = 0
				}
				c.s.GetBatch(ks[pos:pos+batch], fn)
				pos += batch
			}
			if hits == 0 {
				b.Fatal("no hits")
			}
		})
	}
}

// BenchmarkHash hashes the request keys in access order: the part of a
// lookup spent before its first load.
func BenchmarkHash(b *testing.B) {
	fixture(b)
	ks := benchFixture.inOrder
	var x uint64
	for i := 0; b.Loop(); i++ {
		x += hashKey(ks[i%len(ks)], 1)
	}
	keepU64(x)
}

//go:noinline
func keepU64(uint64) {}

// BenchmarkBuild builds the 1M-key file, fsync and rename included; ns/op
// is per key.
func BenchmarkBuild(b *testing.B) {
	_, keys, _ := fixture(b)
	p := filepath.Join(benchFixture.dir, "build.cache")
	b.ResetTimer()
	for b.Loop() {
		if _, err := Build(p, pairs(keys, benchFixture.vals), BuildOptions{SizeHint: len(keys)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchKeys, "ns/key")
}

// BenchmarkOpen opens and closes the 1M-key file: pread of the header,
// validation and mmap only.
func BenchmarkOpen(b *testing.B) {
	fixture(b)
	for b.Loop() {
		s, err := Open(benchFixture.path)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkGetChecked compares Get with GetChecked, which hashes every
// block it reads (an index block and a records block per hit), on the
// default 256-byte blocks and on 512-byte ones, in one run: quote the
// ratios of checked to unchecked ns/op.
func BenchmarkGetChecked(b *testing.B) {
	s, keys, order := fixture(b)
	p512 := filepath.Join(benchFixture.dir, "bench512.cache")
	if _, err := os.Stat(p512); err != nil {
		if _, err := Build(p512, pairs(keys, benchFixture.vals), BuildOptions{blockShift: 9}); err != nil {
			b.Fatal(err)
		}
	}
	s512, err := Open(p512)
	if err != nil {
		b.Fatal(err)
	}
	defer s512.Close()
	for _, c := range []struct {
		name    string
		s       *Store
		checked bool
	}{{"unchecked", s, false}, {"checked-256", s, true}, {"checked-512", s512, true}} {
		b.Run(c.name, func(b *testing.B) {
			for _, i := range order {
				c.s.Get(keys[i])
			}
			b.ResetTimer()
			n := 0
			for i := 0; b.Loop(); i++ {
				k := keys[order[i%len(order)]]
				if !c.checked {
					v, _ := c.s.Get(k)
					n += len(v)
					continue
				}
				v, _, err := c.s.GetChecked(k)
				if err != nil {
					b.Fatal(err)
				}
				n += len(v)
			}
			if n == 0 {
				b.Fatal("no hits")
			}
		})
	}
}

// BenchmarkBytesPerKey reports the file size per key of the 1M key_%d →
// val_%d set and fails above 42.8 B/key (AxonCache's figure for the same
// set, without checksums).
func BenchmarkBytesPerKey(b *testing.B) {
	s, _, _ := fixture(b)
	for b.Loop() {
	}
	per := float64(s.Header().FileSize) / float64(s.Len())
	b.ReportMetric(per, "B/key")
	if per > 42.8 {
		b.Fatalf("%.2f B/key, budget 42.8", per)
	}
}

// BenchmarkInspectSparse2GiB opens a 2 GiB sparse file (one
// 2 GiB value of holes, then a small record) and runs what plain
// `cachebench inspect` and `inspect --get far` run: Open, CheckSample(64)
// and a checked lookup. Neither may depend on the file size: the
// benchmark fails if one op takes over 50 ms or the process's resident
// memory grows by more than 64 MiB over the run.
func BenchmarkInspectSparse2GiB(b *testing.B) {
	p := filepath.Join(b.TempDir(), "sparse2g.cache")
	writeSparse(b, p, 2<<30)
	rss0 := residentBytes()
	b.ResetTimer()
	for b.Loop() {
		s, err := Open(p)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.CheckSample(64); err != nil {
			b.Fatal(err)
		}
		if v, ok, err := s.GetChecked([]byte("far")); err != nil || !ok || string(v) != "beyond4GiB" {
			b.Fatalf("far = %q, %v, %v", v, ok, err)
		}
		s.Close()
	}
	b.StopTimer()
	grown := float64(residentBytes()-rss0) / (1 << 20)
	b.ReportMetric(grown, "MiB-rss-growth")
	if per := b.Elapsed() / time.Duration(b.N); per > 50*time.Millisecond {
		b.Fatalf("%v per inspect of a 2 GiB file: not independent of its size", per)
	}
	if grown > 64 {
		b.Fatalf("resident memory grew by %.0f MiB", grown)
	}
}

// residentBytes is the process's resident set size (Linux), or 0.
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, res int64
	fmt.Sscan(string(b), &size, &res)
	return res * int64(os.Getpagesize())
}
