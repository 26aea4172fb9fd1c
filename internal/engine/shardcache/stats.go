package shardcache

// Stats is a snapshot of a cache's counters, returned by Cache.Stats.
//
// Counters (Hits … Relocations) only grow, across Reset too, so that a
// caller can take deltas between two snapshots. Entries, BytesUsed and
// Capacity describe the state at the time of the call. The snapshot is
// taken shard by shard, so under concurrent writes it is not one atomic
// instant.
type Stats struct {
	// Hits counts Get calls that found a live entry. Hits, Misses and
	// Collisions are counted with plain increments, no atomic
	// instruction (Get takes no lock): exact from one goroutine, they may
	// undercount when goroutines look up keys of one shard at the same
	// instant.
	Hits uint64
	// Misses counts Get calls that found nothing, or only an expired entry.
	Misses uint64
	// Sets counts entries stored by Set and SetWithTTL (rejected ones not
	// included).
	Sets uint64
	// Deletes counts Delete calls that removed a live entry.
	Deletes uint64
	// EvictionsNoSpace counts live, unexpired entries dropped to make room
	// for a new one (ring full or index at its size limit).
	EvictionsNoSpace uint64
	// Expirations counts expired entries removed, whether by the cleanup
	// goroutine, DeleteExpired, eviction from the ring or Delete.
	Expirations uint64
	// Relocations counts second chances: an entry read since it last
	// passed the main queue's tail (or one a contest kept) copied to its
	// head instead of being evicted.
	Relocations uint64
	// Promotions counts entries moved from the window to the main queue.
	Promotions uint64
	// Rejections counts new keys the policy did not admit because they
	// were estimated less used than the entry they would have evicted
	// (passed to OnEvict with ReasonRejected).
	Rejections uint64
	// Collisions counts lookups in which an index slot's hash bits matched
	// the key's but the stored key differed (detected by the full key
	// comparison, so they never return a wrong value). An optimistic read
	// that a writer disturbed may count one that was not.
	Collisions uint64
	// IndexGrowths counts index tables rebuilt at a larger size.
	IndexGrowths uint64
	// Entries is the number of entries held, including expired ones that
	// no cleanup or lookup path has removed yet.
	Entries uint64
	// WindowEntries is how many of Entries are in the window.
	WindowEntries uint64
	// BytesUsed is the memory in use: ring bytes between tail and head
	// (live entries plus holes left by deleted or overwritten ones, reused
	// when the tail passes them) plus the current index tables (the sketch
	// and the ghost are counted in Capacity only).
	BytesUsed uint64
	// Capacity is the most memory the cache may use: every shard's ring
	// plus its largest allowed index, sketch and ghost. It never
	// exceeds Config.MaxBytes.
	Capacity uint64
	// Shards is the effective shard count (Config.Shards, reduced to fit
	// Config.MaxBytes).
	Shards int
}

// EvictReason says why an entry left the cache, for Config.OnEvict.
type EvictReason uint8

// Eviction reasons.
const (
	// ReasonExpired: the entry's TTL had passed.
	ReasonExpired EvictReason = iota + 1
	// ReasonNoSpace: the entry was dropped to make room for a new one.
	ReasonNoSpace
	// ReasonDeleted: the entry was removed by Delete.
	ReasonDeleted
	// ReasonRejected: the policy did not admit a new entry (Set
	// returned nil but stored nothing), because it was estimated less
	// popular than the entry it would have evicted.
	ReasonRejected
)

// String returns the reason's name as used in stats keys.
func (r EvictReason) String() string {
	switch r {
	case ReasonExpired:
		return "expired"
	case ReasonNoSpace:
		return "no_space"
	case ReasonDeleted:
		return "deleted"
	case ReasonRejected:
		return "rejected"
	}
	return "unknown"
}
