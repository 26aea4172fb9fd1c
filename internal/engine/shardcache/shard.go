package shardcache

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// shard is one lock domain: an open-addressing index (linear probing,
// backward-shift deletion, no tombstones) over a byte ring used as a FIFO
// log. Both live off the Go heap; the struct itself holds no pointer to
// any entry. Shards sit side by side in one slice: the padding keeps each
// one's lock and counters off its neighbours' cache lines (128 bytes, as
// the adjacent-line prefetcher pairs lines).
type shard struct {
	// The padding comes first: a zero-length array as the last field would
	// itself add padding.
	_ [(128 - unsafe.Sizeof(shardFields{})%128) % 128]byte
	shardFields
}

type shardFields struct {
	// Read by every Get, written only by writers: 64 bytes, but not one
	// line (the padding before them aligns the shard's end, and Go puts an
	// 8-byte header before small arrays that hold pointers); aligning
	// them to a line measured no faster. seq is odd
	// while a writer changes the index, the ring or a slot (see lock).
	// The current index table and the ring are published here for the
	// reads that take no lock (Get's optimistic path and GetBatch's
	// prefetch): the index regions and the ring stay mapped until the
	// shard array is garbage (Close only gives their pages back), so any
	// base read here, with any length up to maxSlots, is safe to touch.
	seq     atomic.Uint64
	pfIndex atomic.Pointer[byte]
	pfLen   atomic.Uint64
	pfRing  atomic.Pointer[byte]
	// Written by every Get, with plain increments (see bump), on the same
	// line, so that a Get touches one line of its shard.
	hits, misses, collisions uint64
	// pfSketch is the sketch's first word once the policy counts in it
	// (nil before, and after Reset or Close), for Set's prefetch of the
	// key's sketch word before it takes the lock (Cache.prefetchSet).
	pfSketch atomic.Pointer[uint64]

	// Guarded by mu (written with it held exclusively).
	mu    sync.RWMutex
	index table
	ring  []byte
	// The index lives in one of two mappings reserved at maxSlots each
	// (address space only); growth rebuilds it into the other, so it
	// costs no mmap or munmap (which serialise on the process's memory
	// map and, unmapping, interrupt every other core to flush its TLB).
	// touched[r] is how many slots of region r may hold stale bytes.
	regions  [2][]byte
	touched  [2]uint64
	cur      int
	maxSlots uint64
	shift    uint64 // log2 of the slot size (the cache's IndexLayout)
	// fullIndex starts the index at its largest size (Config.HugeIndex),
	// so that it never grows: a growth gives back the old table's pages,
	// and giving back part of a huge page splits it.
	fullIndex bool
	// slotGen changes whenever a slot is emptied or the table replaced:
	// a free slot found by a lookup is still the first of its probe run
	// while slotGen is unchanged (see set). 32 bits fill the padding
	// after fullIndex, so that the shard's lines stay as they are; a Set
	// empties far fewer slots than it would take to wrap it.
	slotGen   uint32
	count     int // live entries (index slots in use)
	published int // count as last added to Cache.held (MaxEntries only)
	ttlCount  int // live entries carrying an expiry
	// q holds the window (q[window], empty in a shard too small for one)
	// and the main queue (q[main]), both parts of ring.
	q             [2]fifo
	sets, deletes uint64
	evictNoSpace  uint64
	expirations   uint64
	relocations   uint64
	promotions    uint64
	growths       uint64
	rejections    uint64
	// pol is the eviction and admission policy's state (policy*.go).
	pol     policy
	counts  []uint64 // the mapping that holds the sketch and the ghost
	scratch []byte   // a wrapped key copied out for hashing
}

// The queues of a shard (fifo).
const (
	window = 0
	main   = 1
)

// lock takes the shard exclusively and makes seq odd, which tells the
// optimistic readers (Cache.tryGet) that the shard is changing: every
// change to the index, the ring or a slot happens between lock and
// unlock. Readers see seq odd, or changed when they load it again, and
// retry or take the read lock.
func (s *shard) lock() {
	s.mu.Lock()
	s.seq.Add(1)
	storeFence()
}

// unlock makes seq even again (its atomic increment orders the changes
// before it) and releases the shard.
func (s *shard) unlock() {
	s.seq.Add(1)
	s.mu.Unlock()
}

// init maps the shard's sketch and ghost (one mapping); its ring, whose
// first small bytes are the window, and its two index regions, each
// maxSlots slots of 1<<shift bytes, are given (slices of the cache's ring
// and index mappings, unmapped by the cache).
func (s *shard) init(r []byte, small, maxSlots, sketchWords, ghostWords, shift uint64, regions [2][]byte) error {
	if n := sketchWords + ghostWords; n > 0 {
		m, err := allocOffHeap(int(n * 8))
		if err != nil {
			return err
		}
		w := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(m))), n)
		s.counts = w
		if sketchWords > 0 {
			s.pol.sketch = sketch{words: w[:sketchWords:sketchWords]}
		}
		if ghostWords > 0 {
			s.pol.ghost = ghost{words: w[sketchWords:]}
		}
	}
	s.ring, s.regions, s.maxSlots, s.shift = r, regions, maxSlots, shift
	s.q[window] = fifo{ring: r[:small:small]}
	s.q[main] = fifo{ring: r[small:], base: small}
	s.pol.reset()
	s.cur, s.touched = 0, [2]uint64{s.firstSlots(), 0}
	s.setIndex(tableOf(regions[0], s.firstSlots(), shift))
	s.pfRing.Store(unsafe.SliceData(r))
	return nil
}

// free empties the shard for Close: it gives the pages of the ring and the
// index back (the cache unmaps them only once no reader can hold their
// addresses) and unmaps the sketch, which only writers touch. mu is held
// exclusively, and seq is odd.
func (s *shard) free() error {
	if s.ring == nil {
		return nil
	}
	dropPages(s.ring)
	for k, r := range s.regions {
		dropPages(r[:s.touched[k]<<s.shift])
	}
	s.pfSketch.Store(nil)
	err := s.freeSketch()
	s.ring, s.regions, s.scratch = nil, [2][]byte{}, nil
	s.setIndex(table{shift: s.shift})
	s.pfRing.Store(nil)
	s.count, s.ttlCount = 0, 0
	for k := range s.q {
		s.q[k].empty()
		s.q[k].ring = nil
	}
	return err
}

// publishSketch publishes the sketch for Set's prefetch (pfSketch) once
// the policy counts in it; the check is inlined, the store is made once.
// mu is held exclusively.
func (s *shard) publishSketch() {
	if s.pol.sketching && s.pfSketch.Load() == nil {
		s.storeSketch()
	}
}

//go:noinline
func (s *shard) storeSketch() { s.pfSketch.Store(unsafe.SliceData(s.pol.sketch.words)) }

// setIndex installs t as the index and publishes it for prefetching.
func (s *shard) setIndex(t table) {
	s.slotGen++
	s.index = t
	s.pfIndex.Store((*byte)(t.base))
	s.pfLen.Store(t.n)
}

// freeSketch unmaps the sketch and the ghost, if any.
func (s *shard) freeSketch() error {
	w := s.counts
	s.counts, s.pol.sketch.words, s.pol.ghost.words = nil, nil, nil
	if w == nil {
		return nil
	}
	return freeOffHeap(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*8))
}

// reset empties the shard and gives its physical memory back.
func (s *shard) reset() {
	dropPages(s.ring)
	for k, r := range s.regions {
		dropPages(r[:s.touched[k]<<s.shift])
	}
	s.cur, s.touched = 0, [2]uint64{s.firstSlots(), 0}
	s.setIndex(tableOf(s.regions[0], s.firstSlots(), s.shift))
	if w := s.counts; w != nil {
		dropPages(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*8))
	}
	s.count, s.ttlCount = 0, 0
	for k := range s.q {
		s.q[k].empty()
	}
	s.pol.reset()
	s.pfSketch.Store(nil)
}

// firstSlots is the size of a new index table: one allocation unit, or
// the whole table when that is smaller (tiny caches).
func (s *shard) firstSlots() uint64 {
	if s.fullIndex {
		return s.maxSlots
	}
	return min(chunkSlots(s.shift), s.maxSlots)
}
