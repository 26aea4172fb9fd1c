package shardcache_test

import (
	"fmt"
	"testing"

	"github.com/cachebench/cachebench/shardcache"
)

// The public Cache's methods forward to the engine's: a hit, a miss and an
// overwrite allocate nothing through them either.
func TestPublicMethodsDoNotAllocate(t *testing.T) {
	c, err := shardcache.New(shardcache.Config{MaxBytes: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	keys := make([][]byte, 1000)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "key_%d", i)
		if err := c.Set(keys[i], keys[i]); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 0, 64)
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		k := keys[i%len(keys)]
		i++
		var found bool
		if buf, found = c.Get(buf[:0], k); !found || string(buf) != string(k) {
			t.Fatalf("Get(%s) = %q, %v", k, buf, found)
		}
		if _, found = c.Get(buf[:0], []byte("absent")); found {
			t.Fatal("a key never set was found")
		}
		if err := c.Set(k, k); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per Get, miss and Set", allocs)
	}
}

// BenchmarkGet is a hit through the public type, to set beside the
// engine's own lookup benchmarks (internal/engine/shardcache).
func BenchmarkGet(b *testing.B) {
	c, err := shardcache.New(shardcache.Config{MaxBytes: 64 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	const n = 1 << 16
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "key_%d", i)
		if err := c.Set(keys[i], keys[i]); err != nil {
			b.Fatal(err)
		}
	}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf, _ = c.Get(buf[:0], keys[i&(n-1)])
	}
}
