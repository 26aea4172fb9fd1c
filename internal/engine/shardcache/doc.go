// Package shardcache is cachebench's own in-memory cache: sharded,
// byte-bounded, evicting, with TTLs, and invisible to the garbage
// collector however many entries it holds.
//
// # Layout
//
// A key's 64-bit hash (xxhash64) picks a shard with its low bits. Each
// shard, guarded by its own RWMutex (padded to 128 bytes so that shards do
// not share cache lines), owns anonymous memory mappings:
//
//   - a ring of bytes holding every entry as a 6-byte header (value length
//     and flags, key length), an 8-byte expiry when the entry has a TTL, the
//     key and the value. Entries are appended at the head and may wrap
//     around the ring's end.
//   - an open-addressing index of 32-byte slots (linear probing, fast-range
//     home slot from the hash's top 30 bits, backward-shift deletion, at
//     most 3/4 full, doubled on demand). The index has two address ranges
//     reserved at its largest size; a doubling rebuilds the table into the
//     other range, whose fresh pages are populated in one madvise call, so
//     growth costs no mmap or munmap and no page fault per slot; pages of
//     the old range are given back only when both tables together would
//     exceed one largest table. A slot holds a used bit, a
//     referenced bit, the 30 hash bits and the entry's 32-bit ring offset;
//     an entry whose key and value fit in 22 bytes and has no TTL is also
//     copied into the slot.
//
// A lookup hashes the key, loads one slot line, and compares hash bits
// first, so probes past other keys rarely touch the ring; the full key is
// always compared (colliding keys coexist, and Delete never removes
// another key). A hit on an inline entry is served from the slot alone:
// one dependent cache miss. Other hits read the ring once more.
//
// # Why the GC does not see it
//
// Rings and indexes are mmap'd outside the Go heap and contain no Go
// pointers; the cache's heap footprint is a few hundred objects (the shard
// array, the cleanup goroutine, a pooled eviction buffer) whatever the
// entry count. Get appends into the caller's buffer and neither Get nor
// Set allocates.
//
// # Memory limit
//
// Config.MaxBytes bounds every shard's ring plus its largest allowed index
// (half of the shard's share may go to the index; with Config.MaxEntries,
// only what that many entries need, and the ring gets the rest); sizes are
// whole pages
// and pages are only backed once written, so memory grows with use up to
// the limit. When MaxBytes is below shards × 32 KiB the shard count is
// halved until it fits; Stats reports the effective count and capacity.
// Reset gives the pages back.
//
// # Eviction
//
// When a shard's ring lacks room for a new entry, or its index has reached
// its size limit, entries are taken from the ring's tail, oldest first.
// Holes left by deleted or overwritten entries are skipped. With the
// default SecondChance policy (CLOCK over the ring), an entry read since
// it was written is copied to the head once, with its bit cleared, instead
// of being evicted (at most 16 such moves per Set, so a Set stays O(1));
// FIFO evicts regardless. On a Zipf workload larger than the cache second
// chance gives the higher hit ratio (see TestSecondChanceHitRatio). An
// entry that can never fit is refused with ErrEntryTooLarge before
// anything is evicted.
//
// # Expiry
//
// Expiry times are nanoseconds on a monotonic clock (time since New by
// default, injectable for tests), so wall-clock steps change nothing. An
// expired entry is never returned; it is removed by the cleanup goroutine
// (which scans rings in bounded batches and stops on Close), by
// DeleteExpired, by Delete, or when eviction reaches it.
//
// # Callbacks
//
// Config.OnEvict receives each entry that leaves the cache (expired, no
// space, deleted) with its reason. Entries are copied out under the shard
// lock and the callback runs after the lock is released, so it may call
// back into the cache.
package shardcache
