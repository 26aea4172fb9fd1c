package hitratio

import (
	"time"

	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// OPTName is the row name of Belady's optimal policy.
const OPTName = "OPT"

// optCache is Belady's MIN with bypass over dense object IDs: on a miss the
// object is admitted only if its next request comes sooner than that of
// some cached object, which is then evicted (the one requested furthest in
// the future). With unit sizes this maximises the object hit ratio of any
// cache of the same entry count, including caches that may refuse an
// object. Memory: a max-heap of at most capacity entries and one int32
// position per distinct object.
type optCache struct {
	cap  int
	heap []optEntry // max-heap on next
	pos  []int32    // object ID -> heap index + 1 (0: not cached)
}

type optEntry struct {
	next int64
	id   uint64
}

func newOPT(capacity, distinct int) *optCache {
	// The heap never holds more than the distinct objects: a capacity of
	// 1e8 entries on a small trace allocates for those only.
	return &optCache{cap: capacity, heap: make([]optEntry, 0, min(capacity, distinct)), pos: make([]int32, distinct)}
}

// never is the next-request time of an object that is not requested again.
const never = int64(^uint64(0) >> 1)

// access replays one request and reports whether it hit.
func (o *optCache) access(id uint64, next int64) bool {
	if next == trace.NoNext {
		next = never
	}
	if p := o.pos[id]; p != 0 {
		// The entry's next was this request; its new one is later, so
		// in a max-heap it can only move up.
		o.up(int(p-1), optEntry{next: next, id: id})
		return true
	}
	switch {
	case next == never:
		// Never requested again: caching it can only displace a hit.
	case len(o.heap) < o.cap:
		o.heap = append(o.heap, optEntry{})
		o.up(len(o.heap)-1, optEntry{next: next, id: id})
	case o.heap[0].next > next:
		o.pos[o.heap[0].id] = 0
		o.down(0, optEntry{next: next, id: id})
	}
	return false
}

// up places e at hole i and moves it towards the root past every parent
// requested sooner, moving each such parent down into the hole.
func (o *optCache) up(i int, e optEntry) {
	h := o.heap
	for i > 0 {
		p := (i - 1) / 2
		if h[p].next >= e.next {
			break
		}
		h[i] = h[p]
		o.pos[h[i].id] = int32(i + 1)
		i = p
	}
	h[i] = e
	o.pos[e.id] = int32(i + 1)
}

// down places e at hole i and moves it towards the leaves past every
// child requested later, moving the later child up into the hole.
func (o *optCache) down(i int, e optEntry) {
	h := o.heap
	n := len(h)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h[r].next > h[c].next {
			c = r
		}
		if e.next >= h[c].next {
			break
		}
		h[i] = h[c]
		o.pos[h[i].id] = int32(i + 1)
		i = c
	}
	h[i] = e
	o.pos[e.id] = int32(i + 1)
}

func (o *optCache) held() int { return len(o.heap) }

// replayOPT runs the optimal policy over a normalized trace.
func replayOPT(n *trace.Normalized, b Budget, t tally) (Row, error) {
	return replayPolicy(n, OPTName, newOPT(b.Entries, n.Distinct), b, t)
}

// replayPolicy runs a policy the lab simulates over a normalized trace; a
// non-nil t counts every object's requests and hits. It reads the records
// a block at a time (Normalized.Blocks): the policies take a few
// nanoseconds a request, and a reader call per record would cost as much.
func replayPolicy(n *trace.Normalized, name string, p policy, b Budget, t tally) (Row, error) {
	row := Row{Adapter: name, Budget: b, Held: -1}
	start := time.Now()
	err := n.Blocks(func(block []byte) error {
		for i := 0; i+trace.NormalizedRecordSize <= len(block); i += trace.NormalizedRecordSize {
			id, size, next := trace.NormalizedFields(block[i:])
			hit := p.access(id, next)
			row.count(hit, size)
			if t != nil {
				t.add(id, hit, size)
			}
		}
		return nil
	})
	if err != nil {
		return row, err
	}
	row.Seconds = time.Since(start).Seconds()
	row.Held = p.held()
	row.finish()
	return row, nil
}
