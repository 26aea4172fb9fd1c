package shardcache

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Cache is a sharded, GC-free, byte-bounded cache. All methods are safe
// for concurrent use. See the package documentation for the design.
type Cache struct {
	shards    []shard
	shardMask uint64
	hash      func([]byte) uint64
	clock     func() time.Duration
	onEvict   func(key, value []byte, reason EvictReason)
	ttl       time.Duration
	maxEntry  int // largest len(key)+len(value)
	ringSize  uint64
	small     uint64 // the window's share of each shard's ring (fifo)
	maxSlots  uint64
	shift     uint64 // log2 of the index slot size
	sketchLen uint64 // words in each shard's sketch
	arena     []byte // every shard's index regions, one mapping
	rings     []byte // every shard's ring, one mapping
	capacity  uint64

	// lockedReads is Config.lockedReads; the benchmarks switch it between
	// lookups (from one goroutine) to compare both paths in one loop.
	lockedReads bool
	// inlineReads is set when Get tries getInline first: reads are
	// optimistic and the index is inline.
	inlineReads bool

	// maxEntries is Config.MaxEntries (0: no entry cap); a shard adds its
	// count changes to held once they reach countBatch either way.
	maxEntries int64
	countBatch int
	// windowEntries is the most entries a shard's window holds, a tenth
	// of its share of MaxEntries (0 without the cap).
	windowEntries int

	// closed and batches let Close wait for the GetBatch calls in flight,
	// which touch shard memory without a lock, before unmapping it.
	closed atomic.Bool
	// The counters written by Set and GetBatch get lines of their own,
	// off the line of the fields every Get reads.
	_       [64]byte
	batches atomic.Int64
	_       [56]byte
	held    atomic.Int64
	_       [56]byte

	closeOnce sync.Once
	stop      chan struct{}
	done      sync.WaitGroup
}

// New builds a cache. Rings and indexes are reserved as address space
// only; physical memory grows as entries are written.
func New(cfg Config) (*Cache, error) {
	if cfg.MaxBytes < MinMaxBytes {
		return nil, fmt.Errorf("%w: MaxBytes %d is below the minimum %d", ErrConfig, cfg.MaxBytes, MinMaxBytes)
	}
	if cfg.MaxEntries < 0 {
		return nil, fmt.Errorf("%w: negative MaxEntries %d", ErrConfig, cfg.MaxEntries)
	}
	if cfg.MaxEntrySize < 0 {
		return nil, fmt.Errorf("%w: negative MaxEntrySize %d", ErrConfig, cfg.MaxEntrySize)
	}
	if cfg.Index > CompactIndex {
		return nil, fmt.Errorf("%w: unknown index layout %d", ErrConfig, cfg.Index)
	}
	shift := cfg.Index.shift()
	// Sizes are whole pages, so that the limit holds for resident memory
	// too; a cache below smallCache is sized in 64-byte units instead (a
	// page of index alone would leave it no ring), and its mappings may
	// then take up to three pages more than MaxBytes.
	unit := pageSize
	if cfg.MaxBytes < smallCache {
		unit = 64
	}
	round := func(n uint64) uint64 { return (n + unit - 1) / unit * unit }
	slotBytes, chunk := uint64(1)<<shift, max(unit>>shift, 1)
	// One index table per shard counts against MaxBytes: the other region
	// of the pair is only resident while growth rebuilds into it, and
	// given back when both would exceed one largest table; with HugeIndex
	// there is no other region (the table starts at its largest size and
	// never grows).
	shards := cfg.Shards
	if shards == 0 {
		shards = DefaultShards
	}
	if shards < 0 || shards > MaxShards || shards&(shards-1) != 0 {
		return nil, fmt.Errorf("%w: Shards %d is not a power of two in [1, %d]", ErrConfig, cfg.Shards, MaxShards)
	}
	layout := func(n int) (ring, slots, sk, gw uint64) {
		budget := uint64(cfg.MaxBytes) / uint64(n)
		// Half of the budget may go to an inline index: at the 3/4 load
		// limit a 32-byte slot costs ~43 bytes per entry, which balances
		// a ring of entries of ~40 bytes; larger entries hit the ring
		// limit first. A compact index gets a quarter (~11 bytes per
		// entry, balancing entries of ~32 bytes in the ring, below which
		// few non-inline entries are). Both grow on demand, so the split
		// only caps each.
		share := budget / 2
		if shift == compactShift {
			share = budget / 4
		}
		slots = share / slotBytes / chunk * chunk
		if cfg.MaxEntries > 0 {
			// The shard's share of MaxEntries plus room for uneven
			// shards, at the 3/4 load limit (maxLoad rounds down to a
			// multiple of 3); exact rather than whole units, since the
			// bound is on entries (the mapping's last unit is charged
			// below). Index, sketch (8 bytes per entry, 6 per slot) and
			// ghost (2 per entry) take at most 3/4 of the budget, less
			// two units for rounding, so that the ring keeps a quarter.
			want := 4 * ((perShard(cfg.MaxEntries, n) + 2) / 3)
			perSlot := slotBytes + 6 + 2
			most := budget * 3 / 4
			most -= min(most, 2*unit)
			slots = min(max(want, chunk), most/perSlot/chunk*chunk)
		}
		if slots < chunk {
			slots = chunk
		}
		// The sketch and the ghost are sized for the entries the index
		// may hold: with MaxEntries that is about the share; without it
		// the index limit assumes ~40-byte entries, so a quarter of it.
		entries := maxLoadU(slots)
		if cfg.MaxEntries == 0 {
			entries /= 4
		}
		sk = sketchWords(entries)
		gw = max(entries/4, 8)
		fixed := round(slots*slotBytes) + round((sk+gw)*8)
		if fixed >= budget {
			return 0, slots, sk, gw
		}
		ring = (budget - fixed) / unit * unit
		return ring, slots, sk, gw
	}
	for shards > 1 {
		ring, _, _, _ := layout(shards)
		if uint64(cfg.MaxBytes)/uint64(shards) < minShardBytes ||
			(cfg.MaxEntrySize > 0 && ring < 4*uint64(cfg.MaxEntrySize+hdrTTL)) ||
			(cfg.MaxEntries > 0 && cfg.MaxEntries/shards < minShardEntries) {
			shards /= 2
			continue
		}
		break
	}
	ring, slots, sk, gw := layout(shards)
	for ring > maxRing && shards < MaxShards {
		shards *= 2
		ring, slots, sk, gw = layout(shards)
	}
	if ring > maxRing {
		return nil, fmt.Errorf("%w: MaxBytes %d needs more than %d shards of at most 4 GiB", ErrConfig, cfg.MaxBytes, MaxShards)
	}
	// The window is a tenth of the ring (S3-FIFO's small queue); the main
	// queue has the rest, and so the largest entry is a little smaller
	// than with one queue.
	small := uint64(0)
	if ring/10 >= 2*hdrTTL {
		small = ring / 10
		if cfg.MaxEntries > 0 {
			// A shard of fewer than 20 entries gets a window of two
			// entries' share of the ring, so that an entry of about the
			// average size fits (a tenth of a 9-entry ring did not, and
			// every new key met the main queue's victim at the door).
			small = max(small, min(2*ring/uint64(max(cfg.MaxEntries/shards, 1)), ring/2))
		}
	}
	if ring-small < 2*hdrTTL {
		return nil, fmt.Errorf("%w: MaxBytes %d leaves no room for entries", ErrConfig, cfg.MaxBytes)
	}
	c := &Cache{
		shards:    make([]shard, shards),
		shardMask: uint64(shards - 1),
		hash:      cfg.hash,
		clock:     cfg.clock,
		onEvict:   cfg.OnEvict,
		ttl:       cfg.DefaultTTL,
		ringSize:  ring,
		small:     small,
		maxSlots:  slots,
		shift:     shift,
		capacity:  uint64(shards) * (ring + round(slots*slotBytes) + round((sk+gw)*8)),
		sketchLen: sk,
		stop:      make(chan struct{}),
	}
	c.setLockedReads(cfg.lockedReads)
	if cfg.MaxEntries > 0 {
		c.maxEntries = int64(cfg.MaxEntries)
		c.countBatch = max(1, cfg.MaxEntries/shards/64)
		c.windowEntries = max(1, cfg.MaxEntries/shards/10)
	}
	if c.clock == nil {
		base := time.Now()
		c.clock = func() time.Duration { return time.Since(base) }
	}
	c.maxEntry = int(min(ring-small-hdrTTL, maxValueSize))
	// Every shard's two index regions lie in one mapping, the first
	// regions of all shards side by side, then the second ones; the rings
	// lie side by side in another.
	// Each region starts on a page, even in a small cache, so that
	// giving an old table's pages back never touches another's.
	region := pageRound(slots << shift)
	tables := uint64(2)
	if cfg.HugeIndex {
		// One table per shard, at its largest size from the start: a
		// growth gives back the old table's pages, and giving back part
		// of a huge page splits it (measured: none of the index was on
		// huge pages once a 1M-entry cache had grown to its size). The
		// mapping ends where the tables do, so no huge page reaches
		// past them.
		tables = 1
	}
	arena, err := allocOffHeap(int(region * uint64(shards) * tables))
	if err != nil {
		return nil, err
	}
	rings, err := allocOffHeap(int(ring * uint64(shards)))
	if err != nil {
		_ = freeOffHeap(arena)
		return nil, err
	}
	if cfg.HugeIndex && hugePages(arena) {
		// Back the whole index now rather than in the first Sets: a
		// random key lands on any of the table's huge pages, so the
		// first few hundred Sets would back all of it anyway, each
		// fault zeroing 2 MiB (and compacting memory when free pages
		// are scattered) inside a Set. On 4 KiB pages it would take
		// many more, so there it is left to them.
		populate(arena)
	}
	if cfg.MaxEntrySize >= hugeEntry && ring >= hugeRing {
		// Large entries are copied in on a Set and out on a hit: on
		// 4 KiB pages a 1 MiB copy walks 256 of them, and its first
		// write faults 256 times; huge pages cut both. A
		// ring fills from its start, so it may hold up to one 2 MiB
		// page more than it has written: under an eighth of a ring
		// this large, and inside MaxBytes either way. Small entries are
		// left on 4 KiB pages: a cache sized with headroom (gc-pause's
		// 20M entries use under half of their 23 MiB rings) would hold
		// up to 2 MiB more per shard, and a hit on them reads one line,
		// not a run of pages.
		hugePages(rings)
	}
	c.arena, c.rings = arena, rings
	for i := range c.shards {
		var regions [2][]byte
		for k := range tables {
			at := (k*uint64(shards) + uint64(i)) * region
			regions[k] = arena[at : at+slots<<shift : at+slots<<shift]
		}
		at := uint64(i) * ring
		c.shards[i].fullIndex = cfg.HugeIndex
		c.shards[i].pol.sketchFrom = maxLoad(int(slots)) / 2
		if cfg.MaxEntries > 0 {
			c.shards[i].pol.sketchFrom = cfg.MaxEntries / shards / 2
		}
		if err := c.shards[i].init(rings[at:at+ring:at+ring], small, slots, sk, gw, shift, regions); err != nil {
			for j := range i {
				_ = c.shards[j].freeSketch()
			}
			_ = freeOffHeap(arena)
			_ = freeOffHeap(rings)
			return nil, err
		}
	}
	// Get reads the rings and indexes without a lock, so no Close may
	// unmap them while a Get of this cache might still run: Close only
	// gives their pages back, and they are unmapped once the shard array,
	// which every Get holds a pointer into, is garbage.
	runtime.AddCleanup(&c.shards[0], unmapAll, [][]byte{arena, rings})
	interval := cfg.CleanupInterval
	if interval == 0 {
		interval = DefaultCleanupInterval
	}
	if interval > 0 {
		c.done.Add(1)
		go c.cleanupLoop(interval)
	}
	return c, nil
}

// perShard is how many of n entries one of shards shards must be able to
// hold: its share plus five standard deviations of the binomial count,
// so that a cache sized for n entries keeps all of them with uniform
// hashing (a shard exceeds that about once in 3.5 million). The global
// count, not this, bounds the entries held.
func perShard(n, shards int) uint64 {
	mean := float64(n) / float64(shards)
	margin := 5 * math.Sqrt(mean*(1-1/float64(shards)))
	return uint64(math.Ceil(mean + margin))
}

// atCap reports whether the cache holds Config.MaxEntries entries, as far
// as the shards have published their counts plus s's own unpublished
// change, and s has an entry it could evict. mu of s is held exclusively.
func (c *Cache) atCap(s *shard) bool {
	return c.maxEntries > 0 && s.count > 0 && c.held.Load()+int64(s.count-s.published) >= c.maxEntries
}

// publish adds s's count changes since it last published to the global
// count once they amount to countBatch entries either way, so that the
// shared counter's cache line moves between cores once per countBatch
// inserts rather than on every one. mu of s is held exclusively.
func (c *Cache) publish(s *shard) {
	if c.maxEntries == 0 {
		return
	}
	if d := s.count - s.published; d >= c.countBatch || d <= -c.countBatch {
		c.held.Add(int64(d))
		s.published = s.count
	}
}

// MaxEntrySize returns the largest len(key)+len(value) Set accepts, with
// or without a TTL: the shard ring size less the largest entry header.
func (c *Cache) MaxEntrySize() int { return c.maxEntry }

// sum hashes key with the configured hash, calling xxhash directly in the
// common case to save an indirect call.
func (c *Cache) sum(key []byte) uint64 {
	if c.hash != nil {
		return customSum(c.hash, key)
	}
	return xxhash.Sum64(key)
}

// customSum calls an injected hash on a copy of key. Passing key itself to
// a function value would make the compiler assume it escapes, moving every
// caller's stack-built key to the heap (an allocation per Get) even with
// the default hash; the copy confines that cost to injected hashes (tests).
func customSum(h func([]byte) uint64, key []byte) uint64 {
	return h(bytes.Clone(key))
}

func (c *Cache) shardFor(h uint64) *shard { return &c.shards[h&c.shardMask] }

// now returns the monotonic time used for expiry, as int64 nanoseconds.
func (c *Cache) now() int64 { return int64(c.clock()) }

// setLockedReads sets Config.lockedReads (the benchmarks switch it on a
// built cache).
func (c *Cache) setLockedReads(locked bool) {
	c.lockedReads = locked
	c.inlineReads = !locked && c.shift == inlineShift
}

// unmapAll unmaps a cache's ring and index mappings once no Get can reach
// them. An error only leaves address space mapped (its pages were given
// back at Close); a cleanup has no one to report it to.
func unmapAll(maps [][]byte) {
	for _, m := range maps {
		_ = freeOffHeap(m)
	}
}

// Stats returns a snapshot of the counters; see Stats for each field.
func (c *Cache) Stats() Stats {
	st := Stats{Shards: len(c.shards), Capacity: c.capacity}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		st.Hits += counter(&s.hits)
		st.Misses += counter(&s.misses)
		st.Collisions += counter(&s.collisions)
		st.Sets += s.sets
		st.Deletes += s.deletes
		st.EvictionsNoSpace += s.evictNoSpace
		st.Expirations += s.expirations
		st.Relocations += s.relocations
		st.Promotions += s.promotions
		st.Rejections += s.rejections
		st.IndexGrowths += s.growths
		st.Entries += uint64(s.count)
		st.WindowEntries += uint64(s.q[window].count)
		st.BytesUsed += s.q[window].head - s.q[window].tail + s.q[main].head - s.q[main].tail + s.index.bytes()
		s.mu.RUnlock()
	}
	return st
}

// Close stops the cleanup goroutine and gives all memory back: the
// sketches are unmapped, and the physical pages of the rings and indexes
// are released (their address space is unmapped when the Cache is
// garbage, since a Get running concurrently may still read it).
// Afterwards Get misses, Set returns ErrClosed, and Close returns nil
// again.
func (c *Cache) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.stop)
		c.done.Wait()
		c.closing()
		for i := range c.shards {
			s := &c.shards[i]
			s.lock()
			if e := s.free(); e != nil && err == nil {
				err = e
			}
			s.unlock()
		}
	})
	return err
}
