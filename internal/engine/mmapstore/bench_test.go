package mmapstore

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

const benchKeys = 1_000_000

// benchFixture is built once per test binary: 1M keys key_%d → val_%d,
// their values, a shuffled lookup order, and the store file.
var benchFixture struct {
	once       sync.Once
	dir, path  string
	keys, vals [][]byte
	order      []int
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

// BenchmarkGet looks the 1M keys up in shuffled order, one per op.
func BenchmarkGet(b *testing.B) {
	s, keys, order := fixture(b)
	for _, i := range order { // fault the file in: a warm-page-cache figure
		s.Get(keys[i])
	}
	b.ResetTimer()
	n := 0
	for i := 0; b.Loop(); i++ {
		k := keys[order[i%len(order)]]
		if v, ok := s.Get(k); ok {
			n += len(v)
		}
	}
	if n == 0 {
		b.Fatal("no hits")
	}
}

// BenchmarkGetBatch looks the same keys up 64 per GetBatch call; ns/op is
// per key.
func BenchmarkGetBatch(b *testing.B) {
	s, keys, order := fixture(b)
	shuffled := make([][]byte, len(order))
	for j, i := range order {
		shuffled[j] = keys[i]
	}
	hits := 0
	fn := func(_ int, v []byte, ok bool) {
		if ok {
			hits++
		}
	}
	s.GetBatch(shuffled, fn)
	b.ResetTimer()
	const batch = 64
	pos := 0
	for done := 0; done < b.N; done += batch {
		if pos+batch > len(shuffled) {
			pos = 0
		}
		s.GetBatch(shuffled[pos:pos+batch], fn)
		pos += batch
	}
	if hits == 0 {
		b.Fatal("no hits")
	}
}

// BenchmarkMapGet is the Go map reference on the same keys and order.
func BenchmarkMapGet(b *testing.B) {
	_, keys, order := fixture(b)
	m := make(map[string][]byte, len(keys))
	for i, k := range keys {
		m[string(k)] = benchFixture.vals[i]
	}
	b.ResetTimer()
	n := 0
	for i := 0; b.Loop(); i++ {
		n += len(m[string(keys[order[i%len(order)]])])
	}
	if n == 0 {
		b.Fatal("no hits")
	}
}

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
