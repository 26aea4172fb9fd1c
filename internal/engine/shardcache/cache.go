package shardcache

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// Errors returned (wrapped) by the cache.
var (
	// ErrEntryTooLarge is returned by Set for an entry that can never fit:
	// a key over MaxKeySize bytes, or a key plus value over MaxEntrySize.
	// Nothing is evicted for a rejected entry.
	ErrEntryTooLarge = errors.New("shardcache: entry too large")
	// ErrClosed is returned by Set after Close.
	ErrClosed = errors.New("shardcache: cache closed")
	// ErrConfig is returned by New for an unusable Config.
	ErrConfig = errors.New("shardcache: invalid config")
)

const (
	// MaxKeySize is the largest key in bytes (the header's key length
	// field is 16 bits).
	MaxKeySize = 1<<16 - 1
	// maxValueSize is the largest value the header's 28-bit length holds.
	maxValueSize = valMask
	// MinMaxBytes is the smallest accepted Config.MaxBytes: one shard with
	// an index of up to 256 slots (8 KiB) and an 8 KiB ring.
	MinMaxBytes = 16 << 10
	// DefaultShards is the shard count when Config.Shards is 0.
	DefaultShards = 256
	// MaxShards bounds Config.Shards (the hash's low bits pick the shard).
	MaxShards = 1024
	// minShardBytes is the smallest budget a shard gets when the shard
	// count is reduced to fit MaxBytes.
	minShardBytes = 32 << 10
	// minShardEntries is the smallest share of Config.MaxEntries a shard
	// gets when the shard count is reduced: a shard with no entry cannot
	// evict for the entry cap and lets a Set in beyond it, so shards
	// must rarely be empty when the cap is reached (a binomial count of
	// mean 64 is 0 with probability e^-64), and the overshoot this
	// allows, one entry per shard, stays under 1/64 of the cap.
	minShardEntries = 64
	// maxRing is the largest ring per shard: slots hold 32-bit offsets.
	maxRing = 1<<32 - 1
	// DefaultCleanupInterval is how often the cleanup goroutine removes
	// expired entries when Config.CleanupInterval is 0.
	DefaultCleanupInterval = time.Second
	// cleanupBudget is how many ring bytes per shard one cleanup tick scans
	// (it resumes there on the next tick), so a tick's cost is bounded on
	// very large caches.
	cleanupBudget = 1 << 20
	// lockBatch is how many ring bytes a cleanup pass scans per lock hold.
	lockBatch = 64 << 10
)

// Config configures a Cache. Only MaxBytes is required.
type Config struct {
	// MaxBytes is the hard memory limit in bytes for entries and index
	// together (every shard's ring plus its largest allowed index; the
	// few hundred bytes of Go structs per shard are not counted). Memory
	// is mapped lazily: pages are backed only once written.
	MaxBytes int64
	// Shards is the number of shards, a power of two up to MaxShards;
	// 0 means DefaultShards. It is halved while a shard would get less
	// than 32 KiB, less than 4×MaxEntrySize, or fewer than 64 entries of
	// MaxEntries, so small limits are honoured (and a shard is rarely
	// empty when the entry cap is reached); Stats.Shards reports the
	// result.
	Shards int
	// MaxEntries, if set, is the most entries the cache holds, whatever
	// their size: once the shards together hold that many, a Set of a new
	// key evicts from its own shard's tail first (or, with TinyLFU, is
	// not admitted). The shards publish their counts to one shared
	// counter in batches of 1/64 of their share, so the cache may
	// overshoot by at most that much (under 2%), and never evicts for the
	// cap before it is reached unless entries were deleted. Each shard's
	// index is sized for its share plus five standard deviations of the
	// binomial spread, so that MaxEntries keys fit whichever shards they
	// hash to. It also sets the memory split: without it, up to half of
	// MaxBytes may go to the index, which suits entries of ~40 bytes but
	// leaves large entries half the memory the limit allows; with it, the
	// index may only grow to what MaxEntries needs (at most 3/4 of
	// MaxBytes) and the rings get the rest. The index still grows on
	// demand; nothing is preallocated.
	MaxEntries int
	// MaxEntrySize is an optional hint: the largest key+value the caller
	// expects. Shards are reduced until each shard's ring holds at least
	// four such entries. Entries up to Cache.MaxEntrySize are accepted
	// either way.
	MaxEntrySize int
	// DefaultTTL applies to entries stored by Set; 0 means they never
	// expire.
	DefaultTTL time.Duration
	// CleanupInterval is how often a background goroutine removes expired
	// entries (each tick scans at most 1 MiB of ring per shard and resumes
	// on the next). 0 means DefaultCleanupInterval; negative disables the
	// goroutine (expired entries are still never returned, and are removed
	// by eviction, Delete or DeleteExpired).
	CleanupInterval time.Duration
	// OnEvict, if set, is called for every entry that leaves the cache
	// other than by being overwritten, by Reset or by Close, with its key,
	// value and reason. The slices are only valid during the call. It is
	// called after the shard lock is released, on the goroutine whose
	// call caused the eviction, so it may call back into the cache; a
	// panic propagates to that caller.
	OnEvict func(key, value []byte, reason EvictReason)
	// Hash replaces the default hash (xxhash64). It must be deterministic;
	// tests inject a constant to force collisions. It is given a copy of
	// the key (one allocation per call), so that the default path stays
	// allocation-free.
	Hash func(key []byte) uint64
	// Clock replaces the default monotonic clock: it returns the time
	// elapsed since an arbitrary fixed base and must never go backwards.
	// Tests inject a fake clock; the default (time.Since a base taken at
	// New) is immune to wall-clock steps.
	Clock func() time.Duration
	// Policy selects the eviction and admission policy; the zero value
	// is TinyLFU.
	Policy Policy
	// Index selects the index slot layout; the zero value, InlineIndex,
	// copies small entries into their 32-byte slots (one cache miss per
	// hit on them). CompactIndex has 8-byte slots and no inline copies:
	// ~32 bytes less per entry, for caches whose entries are too large
	// to inline anyway.
	Index IndexLayout
	// HugeIndex asks for transparent huge pages (MADV_HUGEPAGE) on the
	// mapping that holds every shard's index, so that a lookup's slot
	// load needs no page walk through 4 KiB pages. The kernel may then
	// back any part of that mapping, including the second table of each
	// shard that growth alternates with, so both tables are charged to
	// MaxBytes (the rings get that much less) and the memory limit holds
	// for resident memory still. It only helps where the system's THP
	// mode is "madvise" or "always".
	HugeIndex bool
	// LockedReads makes Get and GetBatch take the shard's read lock (two
	// locked instructions, and a compare-and-swap for the use count)
	// instead of reading optimistically, without any lock or locked
	// instruction, validated by the shard's sequence number. Both are
	// correct; which is faster depends on the machine (see the package
	// documentation, "Where the time goes").
	LockedReads bool
}

// Cache is a sharded, GC-free, byte-bounded cache. All methods are safe
// for concurrent use. See the package documentation for the design.
type Cache struct {
	shards    []shard
	shardMask uint64
	hash      func([]byte) uint64
	clock     func() time.Duration
	onEvict   func(key, value []byte, reason EvictReason)
	policy    Policy
	ttl       time.Duration
	maxEntry  int // largest len(key)+len(value)
	ringSize  uint64
	maxSlots  uint64
	shift     uint64 // log2 of the index slot size
	arena     []byte // every shard's index regions, one mapping
	rings     []byte // every shard's ring, one mapping
	capacity  uint64

	// lockedReads is Config.LockedReads; the benchmarks switch it between
	// lookups (from one goroutine) to compare both paths in one loop.
	lockedReads bool

	// maxEntries is Config.MaxEntries (0: no entry cap); a shard adds its
	// count changes to held once they reach countBatch either way.
	maxEntries int64
	countBatch int

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
	if cfg.Policy > FIFO {
		return nil, fmt.Errorf("%w: unknown policy %d", ErrConfig, cfg.Policy)
	}
	if cfg.Index > CompactIndex {
		return nil, fmt.Errorf("%w: unknown index layout %d", ErrConfig, cfg.Index)
	}
	shift := cfg.Index.shift()
	slotBytes, chunk := uint64(1)<<shift, chunkSlots(shift)
	// charge is how many index tables per shard count against MaxBytes:
	// one (the other region of the pair is only resident while growth
	// rebuilds into it, and given back when both would exceed one
	// largest table), or both with huge pages, which back whole 2 MiB
	// ranges of the index mapping whatever was written in them.
	charge := uint64(1)
	if cfg.HugeIndex {
		charge = 2
	}
	shards := cfg.Shards
	if shards == 0 {
		shards = DefaultShards
	}
	if shards < 0 || shards > MaxShards || shards&(shards-1) != 0 {
		return nil, fmt.Errorf("%w: Shards %d is not a power of two in [1, %d]", ErrConfig, cfg.Shards, MaxShards)
	}
	layout := func(n int) (ring, slots, sk uint64) {
		budget := uint64(cfg.MaxBytes) / uint64(n)
		// Half of the budget may go to an inline index: at the 3/4 load
		// limit a 32-byte slot costs ~43 bytes per entry, which balances
		// a ring of entries of ~40 bytes; larger entries hit the ring
		// limit first. A compact index gets a quarter (~11 bytes per
		// entry, balancing entries of ~32 bytes in the ring, below which
		// few non-inline entries are). Both grow on demand, so the split
		// only caps each. Sizes are whole pages so that the limit holds
		// for resident memory too.
		share := budget / 2
		if shift == compactShift {
			share = budget / 4
		}
		slots = share / charge / slotBytes / chunk * chunk
		if cfg.MaxEntries > 0 {
			// The shard's share of MaxEntries plus room for uneven
			// shards, at the 3/4 load limit (maxLoad rounds down to a
			// multiple of 3); exact rather than whole pages, since the
			// bound is on entries (the mapping's last page is charged
			// below). Index and sketch (8 bytes per entry, 6 per slot)
			// take at most 3/4 of the budget, less two pages for
			// rounding, so that the ring keeps a quarter.
			want := 4 * ((perShard(cfg.MaxEntries, n) + 2) / 3)
			perSlot := slotBytes * charge
			if cfg.Policy == TinyLFU {
				perSlot += 6
			}
			most := budget * 3 / 4
			most -= min(most, 2*pageSize)
			slots = min(max(want, chunk), most/perSlot/chunk*chunk)
		}
		if slots < chunk {
			slots = chunk
		}
		indexBytes := pageRound(slots*slotBytes) * charge
		if cfg.Policy == TinyLFU {
			// Sized for the entries the index may hold: with
			// MaxEntries that is about the share; without it the index
			// limit assumes ~40-byte entries, so a quarter of it.
			if cfg.MaxEntries > 0 {
				sk = sketchWords(maxLoadU(slots))
			} else {
				sk = sketchWords(maxLoadU(slots) / 4)
			}
		}
		if indexBytes+pageRound(sk*8) >= budget {
			return 0, slots, sk
		}
		ring = (budget - indexBytes - pageRound(sk*8)) / pageSize * pageSize
		return ring, slots, sk
	}
	for shards > 1 {
		ring, _, _ := layout(shards)
		if uint64(cfg.MaxBytes)/uint64(shards) < minShardBytes ||
			(cfg.MaxEntrySize > 0 && ring < 4*uint64(cfg.MaxEntrySize+hdrTTL)) ||
			(cfg.MaxEntries > 0 && cfg.MaxEntries/shards < minShardEntries) {
			shards /= 2
			continue
		}
		break
	}
	ring, slots, sk := layout(shards)
	for ring > maxRing && shards < MaxShards {
		shards *= 2
		ring, slots, sk = layout(shards)
	}
	if ring > maxRing {
		return nil, fmt.Errorf("%w: MaxBytes %d needs more than %d shards of at most 4 GiB", ErrConfig, cfg.MaxBytes, MaxShards)
	}
	if ring < 2*hdrTTL {
		return nil, fmt.Errorf("%w: MaxBytes %d leaves no room for entries", ErrConfig, cfg.MaxBytes)
	}
	c := &Cache{
		shards:    make([]shard, shards),
		shardMask: uint64(shards - 1),
		hash:      cfg.Hash,
		clock:     cfg.Clock,
		onEvict:   cfg.OnEvict,
		policy:    cfg.Policy,
		ttl:       cfg.DefaultTTL,
		ringSize:  ring,
		maxSlots:  slots,
		shift:     shift,
		capacity:  uint64(shards) * (ring + pageRound(slots*slotBytes)*charge + pageRound(sk*8)),
		stop:      make(chan struct{}),

		lockedReads: cfg.LockedReads,
	}
	if cfg.MaxEntries > 0 {
		c.maxEntries = int64(cfg.MaxEntries)
		c.countBatch = max(1, cfg.MaxEntries/shards/64)
	}
	if c.clock == nil {
		base := time.Now()
		c.clock = func() time.Duration { return time.Since(base) }
	}
	c.maxEntry = int(min(ring-hdrTTL, maxValueSize))
	// Every shard's two index regions lie in one mapping, the first
	// regions of all shards side by side, then the second ones; the rings
	// lie side by side in another.
	region := pageRound(slots << shift)
	arena, err := allocOffHeap(int(region * uint64(shards) * 2))
	if err != nil {
		return nil, err
	}
	rings, err := allocOffHeap(int(ring * uint64(shards)))
	if err != nil {
		_ = freeOffHeap(arena)
		return nil, err
	}
	if cfg.HugeIndex {
		hugePages(arena)
	}
	c.arena, c.rings = arena, rings
	for i := range c.shards {
		var regions [2][]byte
		for k := range regions {
			at := (uint64(k*shards + i)) * region
			regions[k] = arena[at : at+slots<<shift : at+slots<<shift]
		}
		at := uint64(i) * ring
		if err := c.shards[i].init(rings[at:at+ring:at+ring], slots, sk, shift, regions); err != nil {
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

// unmapAll unmaps a cache's ring and index mappings once no Get can reach
// them. An error only leaves address space mapped (its pages were given
// back at Close); a cleanup has no one to report it to.
func unmapAll(maps [][]byte) {
	for _, m := range maps {
		_ = freeOffHeap(m)
	}
}

// Get appends the value stored under key to dst and returns the extended
// slice and true, or dst and false when the key is absent or expired. It
// does not allocate unless dst must grow.
func (c *Cache) Get(dst, key []byte) ([]byte, bool) { return c.get(dst, key, c.sum(key)) }

// optimisticTries is how many optimistic reads get attempts before it
// takes the shard's read lock (a writer held the shard, or changed it
// during each attempt).
const optimisticTries = 4

// get is Get given the key's hash. It reads optimistically (see tryGet),
// and takes the shard's read lock only when that fails optimisticTries
// times, or always with lockedReads.
func (c *Cache) get(dst, key []byte, h uint64) ([]byte, bool) {
	s := c.shardFor(h)
	if !c.lockedReads {
		if c.shift == inlineShift {
			if out, hit, ok := c.getInline(s, dst, key, h); ok {
				return out, hit
			}
		}
		for range optimisticTries {
			if out, hit, ok := c.tryGet(s, dst, key, h); ok {
				return out, hit
			}
		}
	}
	return c.getLocked(s, dst, key, h)
}

// getInline is the optimistic read of an inline table's commonest cases
// as a small function: a hit on an inline entry, or a miss, within the
// first inlineProbes slots of the key's probe run. Without find's general
// loop and the entry it returns, and without tryGet's larger frame, fewer
// instructions lie between one lookup's slot load and the next one's,
// so that more of the next lookup runs while this one's miss is pending.
// It reports ok false for anything else (a matching tag on a non-inline
// entry or another key, a longer run, a writer at work), and tryGet
// then does the full read.
func (c *Cache) getInline(s *shard, dst, key []byte, h uint64) (out []byte, hit, ok bool) {
	s1 := s.seq.Load()
	base := s.pfIndex.Load()
	if s1&1 != 0 || base == nil {
		return dst, false, false
	}
	hh := h >> (64 - hashBits)
	want := slotUsed | hh<<32
	n := min(s.pfLen.Load(), c.maxSlots)
	i := (hh * n) >> hashBits
	for probes := min(n, inlineProbes); probes > 0; probes-- {
		p := (*slot)(unsafe.Add(unsafe.Pointer(base), i<<inlineShift))
		w := atomic.LoadUint64(&p.meta)
		if w&slotUsed == 0 {
			loadFence()
			if s.seq.Load() != s1 {
				return dst, false, false
			}
			bump(&s.misses)
			return dst, false, true
		}
		if w&(slotUsed|slotHashMask) == want {
			// klen 0 (not inline) gives kl -1, which matches no key;
			// kl+vl is checked because a writer may be changing the
			// slot.
			kl, vl := int(p.klen)-1, int(p.vlen)
			if kl != len(key) || kl+vl > inlineMax || string(p.data[:kl]) != string(key) {
				return dst, false, false
			}
			m := len(dst)
			dst = append(dst, p.data[kl:kl+vl]...)
			loadFence()
			if s.seq.Load() != s1 {
				return dst[:m], false, false
			}
			c.markUse(&p.meta, w)
			bump(&s.hits)
			runtime.KeepAlive(s)
			return dst, true, true
		}
		if i++; i == n {
			i = 0
		}
	}
	return dst, false, false
}

// inlineProbes is how many slots of a probe run getInline looks at (at
// the 3/4 load limit, linear probing's successful searches average 2.5
// probes and unsuccessful ones 8.5).
const inlineProbes = 8

// tryGet is one optimistic read, with no lock and no locked instruction:
// it loads the shard's sequence number (odd while a writer changes the
// shard), looks the key up in the published table and ring, appends the
// value, and loads the sequence number again. If it changed, a writer
// may have changed what was read: dst is cut back and ok is false. The
// lookup (find) stays within mapped memory and never panics whatever it
// reads, and only a validated length may grow dst. A hit updates the use
// count with a plain byte store (setUses), after validation.
func (c *Cache) tryGet(s *shard, dst, key []byte, h uint64) (out []byte, hit, ok bool) {
	s1 := s.seq.Load()
	if s1&1 != 0 {
		return dst, false, false
	}
	base, r := s.pfIndex.Load(), s.pfRing.Load()
	if base == nil || r == nil {
		return dst, false, false // closed: the locked path reports the miss
	}
	// The length is loaded apart from the base, so it may belong to the
	// other table; both regions hold maxSlots slots, which bounds it.
	idx := table{base: unsafe.Pointer(base), n: min(s.pfLen.Load(), c.maxSlots), shift: c.shift}
	ring := unsafe.Slice(r, c.ringSize)
	e, found := s.find(idx, ring, key, h)
	if found && e.exp != noExpiry && e.exp <= c.now() {
		found = false
	}
	if !found {
		loadFence()
		if s.seq.Load() != s1 {
			return dst, false, false
		}
		bump(&s.misses)
		return dst, false, true
	}
	m := len(dst)
	if uint64(cap(dst)-m) < e.vl {
		// dst must grow: validate the length first, so that a torn
		// read never allocates.
		loadFence()
		if s.seq.Load() != s1 {
			return dst, false, false
		}
	}
	dst = appendValue(idx, ring, dst, e)
	loadFence()
	if s.seq.Load() != s1 {
		return dst[:m], false, false
	}
	c.markUse(idx.meta(e.i), e.slot)
	bump(&s.hits)
	// s points into the shard array, whose cleanup unmaps the memory the
	// store above wrote: it must stay reachable until here.
	runtime.KeepAlive(s)
	return dst, true, true
}

// markUse counts a hit in the use count of meta word p, loaded as w, with
// a plain byte store (setUses): TinyLFU counts up to 3, SecondChance sets
// the referenced bit once, FIFO counts nothing.
func (c *Cache) markUse(p *uint64, w uint64) {
	if u := (w & slotUses) >> useShift; (c.policy == TinyLFU && u < 3) || (c.policy == SecondChance && u == 0) {
		setUses(p, u+1)
	}
}

// getLocked is Get under the shard's read lock, with a compare-and-swap
// for the use count.
func (c *Cache) getLocked(s *shard, dst, key []byte, h uint64) ([]byte, bool) {
	s.mu.RLock()
	e, ok := s.lookup(key, h)
	if ok && e.exp != noExpiry && e.exp <= c.now() {
		ok = false
	}
	if !ok {
		s.mu.RUnlock()
		bump(&s.misses)
		return dst, false
	}
	switch {
	case c.policy == SecondChance && e.slot&slotUses == 0:
		s.markRef(e.i)
	case c.policy == TinyLFU && e.slot&slotUses != slotUses:
		s.countUse(e.i, e.slot)
	}
	dst = appendValue(s.index, s.ring, dst, e)
	s.mu.RUnlock()
	bump(&s.hits)
	return dst, true
}

// Has reports whether key holds a live entry. It changes no counter and
// does not count as a use for the eviction policy.
func (c *Cache) Has(key []byte) bool {
	h := c.sum(key)
	s := c.shardFor(h)
	s.mu.RLock()
	e, ok := s.lookup(key, h)
	ok = ok && (e.exp == noExpiry || e.exp > c.now())
	s.mu.RUnlock()
	return ok
}

// Set stores val under key with the default TTL, replacing any previous
// value. Key and value are copied. It returns ErrEntryTooLarge (wrapped,
// naming the key) for an entry that can never fit, and ErrClosed after
// Close.
func (c *Cache) Set(key, val []byte) error { return c.SetWithTTL(key, val, c.ttl) }

// SetWithTTL is Set with a per-entry TTL; ttl <= 0 means the entry never
// expires. The expiry time has the clock's resolution (nanoseconds by
// default).
func (c *Cache) SetWithTTL(key, val []byte, ttl time.Duration) error {
	if len(key) > MaxKeySize || len(key)+len(val) > c.maxEntry {
		// string(...) copies the key, so the caller's key does not escape.
		return fmt.Errorf("%w: key %q: %d-byte key + %d-byte value exceeds %d bytes (keys at most %d)",
			ErrEntryTooLarge, string(keyForError(key)), len(key), len(val), c.maxEntry, MaxKeySize)
	}
	exp := int64(noExpiry)
	if ttl > 0 {
		exp = c.now() + int64(ttl)
		if exp < 0 || exp == noExpiry { // overflow: a TTL beyond ~292 years
			exp = noExpiry - 1
		}
	}
	h := c.sum(key)
	s := c.shardFor(h)
	var ev *evictions
	if c.onEvict != nil {
		ev = getEvictions()
	}
	s.lock()
	if s.ring == nil {
		s.unlock()
		putEvictions(ev)
		return ErrClosed
	}
	s.set(c, key, val, h, exp, ev)
	c.publish(s)
	s.unlock()
	c.fire(ev)
	return nil
}

// Delete removes key and reports whether a live entry was removed. An
// expired entry is removed too, but reported as absent (and passed to
// OnEvict with ReasonExpired).
func (c *Cache) Delete(key []byte) bool {
	h := c.sum(key)
	s := c.shardFor(h)
	var ev *evictions
	if c.onEvict != nil {
		ev = getEvictions()
	}
	s.lock()
	e, ok := s.lookup(key, h)
	live := false
	if ok {
		reason := ReasonDeleted
		if e.exp != noExpiry && e.exp <= c.now() {
			reason = ReasonExpired
		} else {
			live = true
		}
		s.remove(&e, reason, ev)
		s.trimTail()
		c.publish(s)
	}
	s.unlock()
	c.fire(ev)
	return live
}

// Len returns the number of entries held, including expired entries not
// yet removed.
func (c *Cache) Len() int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		n += s.count
		s.mu.RUnlock()
	}
	return n
}

// Reset removes every entry without calling OnEvict, and gives the
// physical memory of the rings and indexes back to the system. Counters
// are kept.
func (c *Cache) Reset() {
	for i := range c.shards {
		s := &c.shards[i]
		s.lock()
		if s.ring != nil {
			s.reset()
			c.publish(s)
		}
		s.unlock()
	}
}

// DeleteExpired removes every expired entry now (the cleanup goroutine
// does it incrementally in the background) and returns how many it
// removed.
func (c *Cache) DeleteExpired() int {
	n := 0
	for i := range c.shards {
		n += c.cleanShard(&c.shards[i], true)
	}
	return n
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
		st.Rejections += s.rejections
		st.IndexGrowths += s.growths
		st.Entries += uint64(s.count)
		st.BytesUsed += s.head - s.tail + s.index.bytes()
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

func (c *Cache) cleanupLoop(interval time.Duration) {
	defer c.done.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			for i := range c.shards {
				select {
				case <-c.stop:
					return
				default:
				}
				c.cleanShard(&c.shards[i], false)
			}
		}
	}
}

// cleanShard removes expired entries from s, scanning the ring from a
// cursor in batches and releasing the lock (and firing callbacks) between
// batches. full scans from the tail to the head; otherwise it scans at most
// cleanupBudget bytes from where the previous tick stopped.
func (c *Cache) cleanShard(s *shard, full bool) int {
	removed := 0
	var scanned uint64
	first := true
	for {
		var ev *evictions
		if c.onEvict != nil {
			ev = getEvictions()
		}
		s.lock()
		if s.ring == nil || s.ttlCount == 0 {
			s.cursor = s.head
			s.unlock()
			putEvictions(ev)
			return removed
		}
		if (full && first) || s.cursor < s.tail || s.cursor >= s.head {
			s.cursor = s.tail
		}
		first = false
		n, bytes := s.cleanBatch(c, c.now(), lockBatch, ev)
		removed += n
		scanned += bytes
		s.trimTail()
		c.publish(s)
		finished := s.cursor >= s.head
		s.unlock()
		c.fire(ev)
		if finished || (!full && scanned >= cleanupBudget) {
			return removed
		}
	}
}

// fire runs OnEvict for the entries collected under a shard lock; the lock
// is no longer held.
func (c *Cache) fire(ev *evictions) {
	if ev == nil {
		return
	}
	if len(ev.items) == 0 {
		putEvictions(ev)
		return
	}
	// Recycle the buffer even if a callback panics.
	defer putEvictions(ev)
	start := 0
	for _, it := range ev.items {
		c.onEvict(ev.buf[start:it.keyEnd:it.keyEnd], ev.buf[it.keyEnd:it.valEnd:it.valEnd], it.reason)
		start = it.valEnd
	}
}

// keyForError shortens a key for an error message.
func keyForError(key []byte) []byte {
	if len(key) > 64 {
		return key[:64]
	}
	return key
}

// evictions collects the entries removed under a shard lock so that
// OnEvict runs after the lock is released.
type evictions struct {
	buf   []byte
	items []evicted
}

// add queues one entry, its key and value each given in up to two pieces
// (ring wrap); ev may be nil (no callback).
func (ev *evictions) add(k1, k2, v1, v2 []byte, reason EvictReason) {
	if ev == nil {
		return
	}
	ev.buf = append(append(ev.buf, k1...), k2...)
	keyEnd := len(ev.buf)
	ev.buf = append(append(ev.buf, v1...), v2...)
	ev.items = append(ev.items, evicted{keyEnd: keyEnd, valEnd: len(ev.buf), reason: reason})
}

type evicted struct {
	keyEnd, valEnd int
	reason         EvictReason
}

var evictionsPool = sync.Pool{New: func() any { return new(evictions) }}

func getEvictions() *evictions { return evictionsPool.Get().(*evictions) }

func putEvictions(ev *evictions) {
	if ev == nil {
		return
	}
	if cap(ev.buf) > 1<<20 { // do not pin one huge value's buffer
		ev.buf = nil
	}
	ev.buf = ev.buf[:0]
	ev.items = ev.items[:0]
	evictionsPool.Put(ev)
}
