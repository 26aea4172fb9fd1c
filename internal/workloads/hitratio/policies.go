package hitratio

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cachebench/cachebench/internal/engine"
)

// policy is a cache the lab simulates itself over the dense object IDs of
// a normalized trace, one entry per object whatever its size: OPT and the
// reference policies. access replays one request (next is the index of
// the object's next request, trace.NoNext if none; only OPT reads it) and
// reports whether it hit.
type policy interface {
	access(id uint64, next int64) bool
	held() int
}

// references are the published policies the lab simulates beside OPT,
// each written from its paper's description, so that the adapters can be
// compared with the policy they implement or claim to beat. They are
// entry-bounded, like OPT.
//
// "lru" names the lab's LRU, not the hashicorp/golang-lru adapter of the
// same name: LRU is deterministic, so both give the same hits at every
// size (TestLRUReferenceMatchesAdapter), and the lab's replays without
// keys, values, a hash map or a lock. `cachebench run` still measures the
// adapter; in hitratio every row named lru is this policy.
var references = map[string]func(capacity, distinct int) policy{
	"fifo":   func(c, d int) policy { return newFIFO(c, d) },
	"lru":    func(c, d int) policy { return newLRU(c, d) },
	"s3fifo": func(c, d int) policy { return newS3FIFO(c, d) },
	"sieve":  func(c, d int) policy { return newSIEVE(c, d) },
}

// ReferenceNames returns the names of the reference policies, sorted.
func ReferenceNames() []string {
	out := make([]string, 0, len(references))
	for n := range references {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// IsReference reports whether name is a policy the lab simulates itself
// (OPT or a reference policy) rather than a registered adapter.
func IsReference(name string) bool {
	_, ok := references[name]
	return ok || name == OPTName
}

// lru is LRU: a doubly linked list of the cached objects, most recently
// requested at the head. A hit moves the object to the head; a miss
// evicts the tail when the cache is full and inserts the object at the
// head. The links of object o are nodes[o], so that a hit reads and writes
// one slot per object it touches.
type lru struct {
	cap, n     int
	nodes      []lruNode
	head, tail int32 // -1 when empty
}

// lruNode links an object towards the head (prev) and the tail (next),
// -1 at the ends; prev is lruOut while the object is not cached.
type lruNode struct{ prev, next int32 }

const lruOut = -2

func newLRU(capacity, distinct int) *lru {
	nodes := make([]lruNode, distinct)
	for i := range nodes {
		nodes[i].prev = lruOut
	}
	return &lru{cap: capacity, nodes: nodes, head: -1, tail: -1}
}

func (l *lru) held() int { return l.n }

func (l *lru) access(id uint64, _ int64) bool {
	o := int32(id)
	nd := &l.nodes[o]
	if nd.prev != lruOut {
		if o != l.head {
			l.unlink(o)
			l.pushHead(o)
		}
		return true
	}
	if l.n >= l.cap {
		t := l.tail
		l.unlink(t)
		l.nodes[t].prev = lruOut
		l.n--
	}
	l.pushHead(o)
	l.n++
	return false
}

// unlink takes cached object o out of the list.
func (l *lru) unlink(o int32) {
	nd := l.nodes[o]
	if nd.prev >= 0 {
		l.nodes[nd.prev].next = nd.next
	} else {
		l.head = nd.next
	}
	if nd.next >= 0 {
		l.nodes[nd.next].prev = nd.prev
	} else {
		l.tail = nd.prev
	}
}

// pushHead links o at the head of the list.
func (l *lru) pushHead(o int32) {
	l.nodes[o] = lruNode{prev: -1, next: l.head}
	if l.head >= 0 {
		l.nodes[l.head].prev = o
	} else {
		l.tail = o
	}
	l.head = o
}

// fifo is FIFO: objects leave in the order they came in, whatever their
// hits. A miss evicts the oldest object when the cache is full and queues
// the new one.
type fifo struct {
	cap int
	q   ring
	in  []bool
}

func newFIFO(capacity, distinct int) *fifo {
	return &fifo{cap: capacity, q: newRing(min(capacity, distinct)), in: make([]bool, distinct)}
}

func (f *fifo) held() int { return f.q.n }

func (f *fifo) access(id uint64, _ int64) bool {
	if f.in[id] {
		return true
	}
	if f.q.n >= f.cap {
		f.in[f.q.pop()] = false
	}
	f.q.push(int32(id))
	f.in[id] = true
	return false
}

// sieve is SIEVE (Zhang et al., "SIEVE is Simpler than LRU: an Efficient
// Turn-Key Eviction Algorithm for Web Caches", NSDI 2024): one FIFO list,
// new objects at its head, a visited bit per object set on a hit, and a
// hand that walks from the tail towards the head. To evict, the hand
// clears the visited bits it passes and evicts the first object it finds
// unvisited, then rests on that object's neighbour towards the head
// (wrapping to the tail at the head). Objects the hand passes keep their
// place in the list: unlike CLOCK's FIFO-reinsertion, survivors are not
// moved to the head, so new objects are the next ones examined.
type sieve struct {
	cap, n           int
	prev, next       []int32 // towards the head / towards the tail; -1 at the ends
	state            []uint8 // sieveIn | sieveVisited
	head, tail, hand int32
}

const (
	sieveIn      = 1
	sieveVisited = 2
)

func newSIEVE(capacity, distinct int) *sieve {
	return &sieve{cap: capacity, prev: make([]int32, distinct), next: make([]int32, distinct),
		state: make([]uint8, distinct), head: -1, tail: -1, hand: -1}
}

func (s *sieve) held() int { return s.n }

func (s *sieve) access(id uint64, _ int64) bool {
	if s.state[id]&sieveIn != 0 {
		s.state[id] |= sieveVisited
		return true
	}
	if s.n >= s.cap {
		s.evict()
	}
	o := int32(id)
	s.prev[o], s.next[o] = -1, s.head
	if s.head >= 0 {
		s.prev[s.head] = o
	}
	s.head = o
	if s.tail < 0 {
		s.tail = o
	}
	s.state[o] = sieveIn
	s.n++
	return false
}

func (s *sieve) evict() {
	o := s.hand
	if o < 0 {
		o = s.tail
	}
	for s.state[o]&sieveVisited != 0 {
		s.state[o] &^= sieveVisited
		if o = s.prev[o]; o < 0 {
			o = s.tail
		}
	}
	s.hand = s.prev[o]
	if p := s.prev[o]; p >= 0 {
		s.next[p] = s.next[o]
	} else {
		s.head = s.next[o]
	}
	if nx := s.next[o]; nx >= 0 {
		s.prev[nx] = s.prev[o]
	} else {
		s.tail = s.prev[o]
	}
	s.state[o] = 0
	s.n--
}

// s3fifo is S3-FIFO (Yang et al., "FIFO queues are all you need for cache
// eviction", SOSP 2023): a small FIFO queue S meant to hold 10% of the
// entries, a main FIFO queue M with the rest, and a ghost FIFO queue G of
// keys only (as many as M holds). Each cached object has a 2-bit access
// count (capped at 3). A miss inserts the object into M if its key is in
// G, else into S, after evicting while the cache is full: from S while S
// holds at least 10% of the capacity, else from M. Evicting from S takes
// its tail: an object accessed while in S (count >= 1, the small-to-main
// threshold the authors illustrate the algorithm with) moves to M,
// evicting from M if M is full, and the next tail is examined; an object
// never accessed leaves for G (whose oldest key drops out when G is
// full), which ends the eviction. Evicting from M takes its tail: an object with a count above
// 0 goes back to M's head with its count decremented, the first with 0 is
// evicted. Objects that leave M are not remembered in G.
type s3fifo struct {
	cap         int
	smallTarget float64 // 10% of cap: S evicts while it holds this many
	mainCap     int     // M is full at this many
	small, main ring
	where       []uint8 // 0 not cached, s3Small, s3Main
	freq        []uint8
	ghost       ghostQueue
}

const (
	s3Small = 1
	s3Main  = 2
	// s3MoveThreshold is the accesses in S that move an object to M.
	s3MoveThreshold = 1
)

func newS3FIFO(capacity, distinct int) *s3fifo {
	smallCap := max(1, capacity/10)
	mainCap := max(1, capacity-smallCap)
	return &s3fifo{
		cap: capacity, smallTarget: 0.1 * float64(capacity), mainCap: mainCap,
		// Each queue holds at most the distinct objects, whatever the capacity.
		small: newRing(min(capacity, distinct)), main: newRing(min(capacity, distinct) + 1),
		where: make([]uint8, distinct), freq: make([]uint8, distinct),
		ghost: newGhost(mainCap, distinct),
	}
}

func (s *s3fifo) held() int { return s.small.n + s.main.n }

func (s *s3fifo) access(id uint64, _ int64) bool {
	if s.where[id] != 0 {
		s.freq[id] = min(s.freq[id]+1, 3)
		return true
	}
	for s.small.n+s.main.n >= s.cap {
		if float64(s.small.n) >= s.smallTarget {
			s.evictSmall()
		} else {
			s.evictMain()
		}
	}
	o := int32(id)
	if s.ghost.remove(o) {
		s.main.push(o)
		s.where[o] = s3Main
	} else {
		s.small.push(o)
		s.where[o] = s3Small
	}
	s.freq[o] = 0
	return false
}

func (s *s3fifo) evictSmall() {
	for s.small.n > 0 {
		t := s.small.pop()
		if s.freq[t] >= s3MoveThreshold {
			s.main.push(t)
			s.where[t] = s3Main
			if s.main.n >= s.mainCap {
				s.evictMain()
			}
			continue
		}
		s.where[t] = 0
		s.ghost.push(t)
		return
	}
}

func (s *s3fifo) evictMain() {
	for s.main.n > 0 {
		t := s.main.pop()
		if s.freq[t] > 0 {
			s.freq[t]--
			s.main.push(t)
			continue
		}
		s.where[t] = 0
		return
	}
}

// ring is a FIFO queue of object IDs of fixed capacity: push at the head,
// pop at the tail.
type ring struct {
	buf     []int32
	tail, n int
}

func newRing(capacity int) ring { return ring{buf: make([]int32, max(capacity, 1))} }

// push and pop wrap by comparison, not by a division per request.
func (r *ring) push(x int32) {
	i := r.tail + r.n
	if i >= len(r.buf) {
		i -= len(r.buf)
	}
	r.buf[i] = x
	r.n++
}

func (r *ring) pop() int32 {
	x := r.buf[r.tail]
	if r.tail++; r.tail == len(r.buf) {
		r.tail = 0
	}
	r.n--
	return x
}

// ghostQueue is S3-FIFO's G: a FIFO queue of at most cap keys from which
// a key can also be removed (when its object is requested again). Removed
// keys are left in the queue as dead slots, told from live ones by a
// sequence number per object, and skipped when the queue is trimmed, so
// that G always holds its cap most recent live keys.
type ghostQueue struct {
	cap   int
	q     []ghostSlot
	first int      // index in q of the oldest slot
	live  int      // live keys
	seq   []uint64 // per object: 1 + the seq of its live slot, 0 if not in G
	next  uint64
}

type ghostSlot struct {
	id  int32
	seq uint64
}

func newGhost(capacity, distinct int) ghostQueue {
	return ghostQueue{cap: capacity, seq: make([]uint64, distinct)}
}

func (g *ghostQueue) push(id int32) {
	for g.live >= g.cap {
		s := g.q[g.first]
		g.first++
		if g.seq[s.id] == s.seq+1 {
			g.seq[s.id] = 0
			g.live--
		}
	}
	if g.first > len(g.q)/2 && g.first > 1024 {
		g.q = slices.Delete(g.q, 0, g.first)
		g.first = 0
	}
	g.q = append(g.q, ghostSlot{id: id, seq: g.next})
	g.seq[id] = g.next + 1
	g.next++
	g.live++
}

// remove reports whether id was in G, and takes it out.
func (g *ghostQueue) remove(id int32) bool {
	if g.seq[id] == 0 {
		return false
	}
	g.seq[id] = 0
	g.live--
	return true
}

// ResolveAdapters turns hitratio's comma-separated --adapters list into
// row names: reference policies (fifo, lru, s3fifo, sieve) by name, adapters by name
// or group as engine.Resolve reads them. A group selects only the adapters
// that evict (Factory.Unbounded unset): a cache that never evicts beats
// every policy and tells nothing about any size, so map and syncmap run
// only when named. OPT is always added by Run and is not listed.
func ResolveAdapters(list string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "" || item == OPTName:
			continue
		case references[item] != nil:
			add(item)
			continue
		}
		fs, err := engine.Resolve(item)
		if err != nil {
			return nil, fmt.Errorf("%w (reference policies: %s)", err, strings.Join(ReferenceNames(), ", "))
		}
		for _, f := range fs {
			if len(fs) == 1 && f.Name == item || !f.Unbounded {
				add(f.Name)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q selects no adapter", list)
	}
	return out, nil
}
