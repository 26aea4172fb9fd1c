package hitratio

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cachebench/cachebench/internal/workloads/trace"
	"github.com/cachebench/cachebench/internal/workloads/trace/published"
)

// indexedOPT is Belady's MIN with bypass as a max-heap on next request
// with an index per object, sifted by swaps in both directions after
// every change: the plain implementation that optCache's one-way sifts
// through a hole must agree with.
type indexedOPT struct {
	cap  int
	heap []optEntry // max-heap on next
	pos  []int32    // object ID -> heap index + 1 (0: not cached)
}

func newIndexedOPT(capacity, distinct int) *indexedOPT {
	// The heap never holds more than the distinct objects: a capacity of
	// 1e8 entries on a small trace allocates for those only.
	return &indexedOPT{cap: capacity, heap: make([]optEntry, 0, min(capacity, distinct)), pos: make([]int32, distinct)}
}

// access replays one request and reports whether it hit.
func (o *indexedOPT) access(id uint64, next int64) bool {
	if next == trace.NoNext {
		next = never
	}
	if p := o.pos[id]; p != 0 {
		o.heap[p-1].next = next
		o.fix(int(p - 1))
		return true
	}
	switch {
	case next == never:
		// Never requested again: caching it can only displace a hit.
	case len(o.heap) < o.cap:
		o.heap = append(o.heap, optEntry{next: next, id: id})
		o.pos[id] = int32(len(o.heap))
		o.up(len(o.heap) - 1)
	case o.heap[0].next > next:
		o.pos[o.heap[0].id] = 0
		o.heap[0] = optEntry{next: next, id: id}
		o.pos[id] = 1
		o.down(0)
	}
	return false
}

func (o *indexedOPT) swap(i, j int) {
	o.heap[i], o.heap[j] = o.heap[j], o.heap[i]
	o.pos[o.heap[i].id] = int32(i + 1)
	o.pos[o.heap[j].id] = int32(j + 1)
}

func (o *indexedOPT) fix(i int) {
	if !o.up(i) {
		o.down(i)
	}
}

func (o *indexedOPT) up(i int) bool {
	moved := false
	for i > 0 {
		p := (i - 1) / 2
		if o.heap[p].next >= o.heap[i].next {
			break
		}
		o.swap(i, p)
		i, moved = p, true
	}
	return moved
}

func (o *indexedOPT) down(i int) {
	n := len(o.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && o.heap[r].next > o.heap[l].next {
			c = r
		}
		if o.heap[i].next >= o.heap[c].next {
			return
		}
		o.swap(i, c)
		i = c
	}
}

func (o *indexedOPT) held() int { return len(o.heap) }

// OPT agrees request by request with the plain heap on random traces
// (small and large caches, objects never requested again) and on vendored
// traces.
func TestOPTMatchesIndexedHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var ns []*trace.Normalized
	for round := 0; round < 20; round++ {
		objects := 2 + rng.IntN(3000)
		ids := make([]uint64, 1000+rng.IntN(20000))
		for i := range ids {
			ids[i] = uint64(rng.IntN(objects))
		}
		ns = append(ns, normalizeIDs(t, ids))
	}
	for _, name := range []string{"lirs/sprite", "lirs/multi2", "cache2k/web07", "corda/trace_vaultservice"} {
		tr, ok := published.Lookup(name)
		if !ok {
			t.Fatalf("%s not vendored", name)
		}
		ns = append(ns, normalizeSource(t, tr.Source()))
	}
	for k, n := range ns {
		for _, c := range []int{1, 2, 10, n.Distinct / 20, n.Distinct / 3, n.Distinct} {
			c = max(c, 1)
			a, b := newOPT(c, n.Distinct), newIndexedOPT(c, n.Distinct)
			f, err := n.Open()
			if err != nil {
				t.Fatal(err)
			}
			var q trace.Request
			for i := 0; f.Next(&q) == nil; i++ {
				x, y := a.access(q.ID, q.Next), b.access(q.ID, q.Next)
				if x != y || a.held() != b.held() {
					t.Fatalf("trace %d, %d entries, request %d: hit %v held %d, indexed heap %v %d", k, c, i, x, a.held(), y, b.held())
				}
			}
			f.Close()
		}
	}
}

// zipfRequests draws n requests over objects, zipf(alpha), and each one's
// next-request index (trace.NoNext for the last).
func zipfRequests(n, objects int, alpha float64) (ids []uint64, next []int64) {
	rng := rand.New(rand.NewPCG(1, 1))
	z := rand.NewZipf(rng, alpha, 1, uint64(objects-1))
	ids, next = make([]uint64, n), make([]int64, n)
	last := make([]int64, objects)
	for i := range last {
		last[i] = trace.NoNext
	}
	for i := range ids {
		ids[i] = z.Uint64()
	}
	for i := n - 1; i >= 0; i-- {
		next[i], last[ids[i]] = last[ids[i]], int64(i)
	}
	return ids, next
}

// BenchmarkOPT replays 4M zipf requests over 1M objects through OPT at
// 1% and 10% of the objects, beside the plain heap (metric req/s).
func BenchmarkOPT(b *testing.B) {
	const objects = 1_000_000
	ids, next := zipfRequests(4_000_000, objects, 1.0001)
	for _, c := range []int{objects / 100, objects / 10} {
		for _, impl := range []string{"hole", "indexed"} {
			b.Run(fmt.Sprintf("impl=%s/entries=%d", impl, c), func(b *testing.B) {
				for b.Loop() {
					var p policy = newOPT(c, objects)
					if impl == "indexed" {
						p = newIndexedOPT(c, objects)
					}
					for i, id := range ids {
						p.access(id, next[i])
					}
				}
				b.ReportMetric(float64(len(ids))*float64(b.N)/b.Elapsed().Seconds(), "req/s")
			})
		}
	}
}
