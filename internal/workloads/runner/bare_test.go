package runner_test

// The bare-loop cross-check of the runner: BenchmarkLookup looks the same pre-generated
// data up in map, fastcache, shardcache and mmapstore with the plainest
// loop there is, calling each library directly, the keys of the lookup
// stream in access order, every value copied out. scripts/crosscheck.sh
// runs it and `cachebench run` back to back and prints the two side by
// side: the runner's lookup figures should agree with the bare loop's
// within about 10% (its harness floor) and rank the adapters the same.

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/VictoriaMetrics/fastcache"

	"github.com/cachebench/cachebench/internal/engine/mmapstore"
	"github.com/cachebench/cachebench/internal/engine/shardcache"
	"github.com/cachebench/cachebench/internal/workloads"
)

var (
	keys = flag.Int("crosscheck.keys", 1_000_000, "key space of the insert-lookup data (cachebench run --keys)")
	seed = flag.Uint64("crosscheck.seed", 1, "seed of the data (cachebench run --seed)")
)

// data is generated once per process, as cachebench run does.
var data = sync.OnceValues(func() (*workloads.Workload, error) {
	s, err := workloads.DefaultSpec(workloads.InsertLookup)
	if err != nil {
		return nil, err
	}
	s.Keys, s.Seed = *keys, *seed
	return workloads.Generate(s)
})

// getter is one library's lookup, called directly.
type getter func(dst, key []byte) ([]byte, bool)

// BenchmarkLookup inserts every key into each library, configured as its
// cachebench adapter configures it with the budget cachebench run gives
// it, collects the insert's garbage, then times lookups of the lookup
// stream in order (wrapping around): key bytes read sequentially, the
// value appended to a reused buffer and its first byte read, a miss
// failing the benchmark. "impl=loop" is the loop alone (the key's index
// parsed and its value built, as the null probe does): the bare loop's
// own floor.
func BenchmarkLookup(b *testing.B) {
	w, err := data()
	if err != nil {
		b.Fatal(err)
	}
	for _, im := range impls(w) {
		get, release := im.build(b)
		runtime.GC()
		b.Run("impl="+im.name, func(b *testing.B) { lookups(b, w.LookupStream, get) })
		release()
		// As the runner after each adapter: collect its garbage and give
		// the freed pages back now, so that the runtime's background
		// scavenger does not return them (madvise calls, TLB shootdowns)
		// during the next implementation's lookups.
		runtime.GC()
		debug.FreeOSMemory()
	}
}

type impl struct {
	name string
	// build inserts every key and returns the lookup and what frees it.
	build func(tb testing.TB) (getter, func())
}

// impls lists the bare loops, each library configured as its cachebench
// adapter configures it, with the budget cachebench run gives it.
func impls(w *workloads.Workload) []impl {
	budget := w.Budget()
	codec := w.Codec
	return []impl{
		{"loop", func(testing.TB) (getter, func()) {
			probe := workloads.NewProbe(codec.Seed())
			return func(dst, key []byte) ([]byte, bool) {
				dst, ok, _ := probe.Get(dst, key)
				return dst, ok
			}, func() {}
		}},
		{"map", func(testing.TB) (getter, func()) {
			// As the map adapter: map[string][]byte behind one RWMutex,
			// no size hint, key and value copied on Set.
			var mu sync.RWMutex
			m := map[string][]byte{}
			each(w, func(k, v []byte) {
				mu.Lock()
				m[string(k)] = append([]byte(nil), v...)
				mu.Unlock()
			})
			return func(dst, key []byte) ([]byte, bool) {
				mu.RLock()
				v, ok := m[string(key)]
				if ok {
					dst = append(dst, v...)
				}
				mu.RUnlock()
				return dst, ok
			}, func() { m = nil }
		}},
		{"fastcache", func(testing.TB) (getter, func()) {
			c := fastcache.New(int(budget.MemoryBytes))
			each(w, func(k, v []byte) { c.Set(k, v) })
			return c.HasGet, c.Reset
		}},
		{"shardcache", func(b testing.TB) (getter, func()) {
			c, err := shardcache.New(shardcache.Config{
				MaxBytes: budget.MemoryBytes, MaxEntries: budget.Entries, MaxEntrySize: budget.MaxValueSize + 64,
				CleanupInterval: -1,
			})
			if err != nil {
				b.Fatal(err)
			}
			each(w, func(k, v []byte) {
				if err := c.Set(k, v); err != nil {
					b.Fatal(err)
				}
			})
			return c.Get, func() { c.Close() }
		}},
		{"mmapstore", func(b testing.TB) (getter, func()) {
			path := filepath.Join(b.TempDir(), "crosscheck.mms")
			bl, err := mmapstore.Create(path, mmapstore.BuildOptions{Duplicates: mmapstore.DupLastWins, SizeHint: budget.Entries})
			if err != nil {
				b.Fatal(err)
			}
			each(w, func(k, v []byte) {
				if err := bl.Add(k, v); err != nil {
					b.Fatal(err)
				}
			})
			if _, err := bl.Finish(); err != nil {
				b.Fatal(err)
			}
			s, err := mmapstore.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			return s.GetAppend, func() { s.Close(); os.Remove(path) }
		}},
	}
}

// each sets every key in insert order.
func each(w *workloads.Workload, set func(k, v []byte)) {
	st := w.InsertStream
	for j := 0; j < st.Len(); j++ {
		set(st.KeyAt(j), st.ValueAt(j))
	}
}

// lookups is the plainest loop: the next key is the next bytes of the
// stream; one warm-up lap of a tenth of the stream first, as the runner's.
func lookups(b *testing.B, st *workloads.Stream, get getter) {
	ops, keys := st.Ops, st.Keys
	dst := make([]byte, 0, 64)
	var sink byte
	warm := len(ops) / 10
	start := uint32(0)
	for j := 0; j < warm; j++ {
		end := ops[j].KeyEnd
		dst, _ = get(dst[:0], keys[start:end])
		start = end
	}
	b.ResetTimer()
	j, start := 0, uint32(0)
	for i := 0; i < b.N; i++ {
		end := ops[j].KeyEnd
		var ok bool
		dst, ok = get(dst[:0], keys[start:end])
		if !ok {
			b.Fatalf("key %q not found", keys[start:end])
		}
		sink ^= dst[0]
		start = end
		if j++; j == len(ops) {
			j, start = 0, 0
		}
	}
	b.StopTimer()
	sinkByte = sink
}

var sinkByte byte

// TestBareLoopsFindEveryKey builds every bare loop over a small key space
// and looks every key up, so that the benchmark cannot silently measure
// misses or wrong values.
func TestBareLoopsFindEveryKey(t *testing.T) {
	s, err := workloads.DefaultSpec(workloads.InsertLookup)
	if err != nil {
		t.Fatal(err)
	}
	s.Keys = 3000
	w, err := workloads.Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	st := w.LookupStream
	for _, im := range impls(w) {
		get, release := im.build(t)
		var dst []byte
		for j := 0; j < st.Len(); j++ {
			var ok bool
			dst, ok = get(dst[:0], st.KeyAt(j))
			if !ok || !w.Codec.Check(dst, st.KeyAt(j), 0) {
				t.Fatalf("%s: key %q: found %v, value %x", im.name, st.KeyAt(j), ok, dst)
			}
		}
		release()
	}
}
