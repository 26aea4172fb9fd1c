package shardcache

import (
	"errors"
	"time"
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
	// maxValueSize is the largest value the header's 27-bit length holds (128 MiB).
	maxValueSize = valMask
	// MinMaxBytes is the smallest accepted Config.MaxBytes: one shard with
	// an index, sketch and ghost of a few hundred bytes and a ring of the
	// rest (about ten entries of 64 bytes).
	MinMaxBytes = 1 << 10
	// smallCache is the MaxBytes below which sizes are rounded to 64
	// bytes rather than whole pages (see New).
	smallCache = 64 << 10
	// DefaultShards is the shard count when Config.Shards is 0.
	DefaultShards = 256
	// MaxShards bounds Config.Shards (the hash's low bits pick the shard).
	MaxShards = 1024
	// minShardBytes is the smallest budget a shard gets when the shard
	// count is reduced to fit MaxBytes.
	minShardBytes = 32 << 10
	// minShardEntries is the smallest share of Config.MaxEntries a shard
	// gets when the shard count is reduced. A shard with no entry cannot
	// evict for the entry cap and lets a Set in beyond it, so shards
	// must rarely be empty when the cap is reached (64 was enough for
	// that), but each shard also runs its own policy: its window, its
	// sketch and its climber judge from its own share of the traffic,
	// and small shards judge worse; at 512 a cache of a million entries
	// keeps DefaultShards.
	minShardEntries = 512
	// maxRing is the largest ring per shard: slots hold 32-bit offsets.
	maxRing = 1<<32 - 1
	// hugeRing and hugeEntry are the smallest ring per shard and
	// MaxEntrySize hint for which the rings are advised MADV_HUGEPAGE
	// (see New).
	hugeRing  = 16 << 20
	hugeEntry = 64 << 10
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
	// than 32 KiB, less than 4×MaxEntrySize, or fewer than 512 entries of
	// MaxEntries, so small limits are honoured (and a shard is rarely
	// empty when the entry cap is reached); Stats.Shards reports the
	// result.
	Shards int
	// MaxEntries, if set, is the most entries the cache holds, whatever
	// their size: once the shards together hold that many, a Set of a new
	// key evicts from its own shard first (or is not admitted). The shards publish their counts to one shared
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
	// either way. A hint of 64 KiB or more, with rings of 16 MiB or more
	// per shard, also asks for transparent huge pages on the rings
	// (MADV_HUGEPAGE), for the copies of such entries in and out.
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
	// Index selects the index slot layout; the zero value, InlineIndex,
	// copies small entries into their 32-byte slots (one cache miss per
	// hit on them). CompactIndex has 8-byte slots and no inline copies:
	// ~32 bytes less per entry, for caches whose entries are too large
	// to inline anyway.
	Index IndexLayout
	// HugeIndex asks for transparent huge pages (MADV_HUGEPAGE) on the
	// mapping that holds every shard's index, so that a lookup's slot
	// load needs no page walk through 4 KiB pages. Each shard's index
	// then starts at its largest size and never grows (a growth gives
	// back the old table's pages, which splits huge pages), so a cache
	// that is far from full has more of its index resident than without
	// it; the index is charged to MaxBytes at that size either way. It
	// only helps where the system's THP mode is "madvise" or "always",
	// and there New backs the whole index (MADV_POPULATE_WRITE, Linux
	// 5.14 or later), which the first few hundred Sets would do anyway,
	// one 2 MiB fault each: New takes longer (about 1 ms per 10 MB of
	// index, or more when free memory is scattered) and Sets take no
	// such faults.
	HugeIndex bool
	// Set only by this package's tests. hash replaces the default hash
	// (xxhash64) and must be deterministic (a constant forces collisions);
	// it is given a copy of the key (one allocation per call), so that the
	// default path stays allocation-free. clock replaces the default
	// monotonic clock (time.Since a base taken at New): the time elapsed
	// since a fixed base, never going backwards. lockedReads makes Get and
	// GetBatch take the shard's read lock (two locked instructions, and a
	// compare-and-swap for the use count) instead of reading
	// optimistically, validated by the shard's sequence number; the
	// benchmarks compare both.
	hash        func(key []byte) uint64
	clock       func() time.Duration
	lockedReads bool
}
