// Package shardcache is cachebench's own in-memory cache: sharded,
// byte-bounded, evicting, with TTLs, and invisible to the garbage
// collector however many entries it holds.
//
// # Use
//
//	c, err := shardcache.New(shardcache.Config{MaxBytes: 256 << 20, MaxEntries: 1 << 20})
//	if err != nil { ... }
//	defer c.Close()
//	_ = c.Set(key, value)            // copies key and value
//	buf, ok := c.Get(buf[:0], key)   // appends the value to buf
//
// Only MaxBytes is required; it bounds every byte the cache maps (rings,
// index, sketch, ghost), and pages are backed only once written. Get and
// Set allocate nothing (Get only grows dst when it must), Get takes no
// lock, and every method is safe for concurrent use. Config.OnEvict sees
// every entry that leaves, after the shard's lock is released. DESIGN.md,
// beside this file, has the measurements behind the choices below and what
// was tried and dropped.
//
// # Layout
//
// A key's 64-bit hash (xxhash64) picks a shard with its low bits. Each
// shard is written under its own lock and read without one (see "Reads
// without a lock"), is padded to 128 bytes so that shards share no cache
// line, and owns off-heap memory in anonymous mappings (one holds every
// shard's rings, one every shard's index tables; each shard's sketch and
// ghost share a small one):
//
//   - a ring of bytes holding every entry as a 6-byte header (value length
//     and flags, key length), an 8-byte expiry when the entry has a TTL,
//     the key and the value, appended at the head, possibly wrapping
//     around the end. With the windowed policies the ring is two FIFO
//     queues side by side: the window (a tenth of it, or two entries'
//     share in a shard of fewer than 20 entries) and the main queue.
//   - an open-addressing index (linear probing, fast-range home slot from
//     the hash's top 23 bits, backward-shift deletion, at most 3/4 full,
//     doubled on demand) of 32-byte slots, or 8-byte slots with
//     Config.Index = CompactIndex. A slot's first 8 bytes hold the use
//     count (the hint byte), a used bit, the 23 hash bits and the entry's
//     32-bit offset in the shard's ring, which also says which queue holds
//     it; an inline (32-byte) slot also holds a copy of an entry whose key
//     and value fit in 22 bytes and that has no TTL.
//
// Inline slots serve small entries in one dependent cache miss but cost
// ~43 bytes of index per entry at the load limit; compact slots cost ~11
// and always read the ring after the slot. The cachebench adapter picks
// compact slots when the workload's values exceed 22 bytes.
//
// The index has two address ranges reserved at its largest size, in the
// one mapping that holds every shard's: growth rebuilds the table into the
// other range (populated in one madvise call), so it costs no mmap or
// munmap and no page fault per slot; pages of the old range are given back
// only when both tables together would exceed one largest table. With
// Config.HugeIndex the mapping holds one range, each shard's table at its
// largest size from the start, advised MADV_HUGEPAGE so that a lookup
// needs no walk through 4 KiB page tables: giving back an old table's
// pages after a growth split the huge pages around it, and a 1M-entry
// cache that had grown to its size had none of its index on them. It is
// off by default, since a cache far from full then has its whole index
// resident; the cachebench adapter turns it on (DESIGN.md, "Huge pages
// that stay"). Where THP is granted, New backs that index at once, as the
// first few hundred Sets would, so no Set takes a 2 MiB page fault
// (DESIGN.md, "The huge index backed at New").
//
// A lookup hashes the key, loads one slot line and compares hash bits
// first, so probes past other keys rarely touch the ring; the full key is
// always compared (colliding keys coexist, and Delete never removes
// another key). A Set prefetches the key's home slot before it takes the
// shard's lock, whose locked instruction would hold the slot's load back,
// and loads the key's sketch word before probing, so that the two misses
// overlap (DESIGN.md, "The slot's miss before the lock").
//
// # Why the GC does not see it
//
// Rings, indexes, sketches and ghosts are mmap'd outside the Go heap and
// contain no Go pointers; the cache's heap footprint is a few hundred
// objects (the shard array, the cleanup goroutine, a pooled eviction
// buffer) whatever the entry count.
//
// # Memory limit
//
// Config.MaxBytes bounds every shard's ring plus its largest allowed
// index (half of the shard's share may go to an inline index, a quarter
// to a compact one; with Config.MaxEntries only what that many entries
// need, and the ring gets the rest) plus the sketch (8 bytes per entry)
// and ghost (2). Sizes are whole pages so that the limit holds for
// resident memory; a cache below 64 KiB is sized in 64-byte units instead
// (a page of index alone would leave it no ring), and its mappings may
// take up to three pages more than MaxBytes. MaxBytes down to 1 KiB is
// accepted. When MaxBytes is below shards × 32 KiB the shard count is
// halved until it fits; Stats reports the effective count and capacity.
// Reset gives the pages back.
//
// Config.MaxEntries caps the entries held across shards: each shard
// adds its count changes to one shared atomic counter once they amount to
// 1/64 of its share (so that counter's line moves between cores once per
// that many inserts), and a Set of a new key evicts from its own shard
// while the published total plus its unpublished change is at the cap.
// Inserts spread evenly, so every shard then evicts about as often as it
// inserts and no capacity is lost to uneven shards. The overshoot is
// bounded by the unpublished changes plus one entry per shard that was
// empty at the cap; shards are reduced until each has 512 entries of the
// share (also so that each shard's policy sees enough traffic to judge),
// so both stay under 1/64 of the cap (MaxEntries 1 holds 1 entry).
// Each shard's index is sized for its share plus five standard deviations
// of the binomial spread.
//
// # Eviction and admission
//
// The default policy, WindowTinyLFU, combines S3-FIFO's queues (Yang et
// al., SOSP 2023) with TinyLFU's admission (Einziger et al.) and an
// adaptive bias:
//
//   - A new key enters the window, a FIFO of a tenth of the shard's ring
//     bytes and (with MaxEntries) of its entries. It is always stored, so
//     a key read again soon after its first read hits.
//   - When the window must give up an entry, its oldest moves to the
//     main queue if it was read meanwhile (or the cache has room); but
//     at the entry cap, once the climber (below) stands below its
//     starting position, or at any position while the traffic looks
//     like a loop (see door keys below), a read one meets the victim as
//     an unread one does (lirs/zigzag at 1001 entries: 45.69% before,
//     46.70% with it below the start; LRU 48.08%: the keys read at the
//     end of one pass and the start of the next moved on for free and
//     displaced keys the pass reads). An
//     unread one meets the main queue's victim: a count-min sketch of
//     recent use (4-bit counters, a key's four in one 8-byte word, halved
//     every ten uses per entry held) estimates both, and the candidate is
//     admitted if its estimate plus the shard's bias, less one, exceeds
//     the victim's. The loser is evicted; a window entry evicted unread
//     leaves its hash in the ghost (16-bit tags, four per word, oldest
//     shifted out). A candidate that cannot win (estimate plus bias less
//     one at most 0) is refused without a contest, so that the main
//     queue's hand does not turn on every window exit.
//   - The main queue is CLOCK: an entry at its tail that was read since it
//     last passed moves to the head with its 2-bit use count decremented;
//     an unread one is the victim. An entry that moved on from the window
//     because it was read there is on trial until it is read in the main
//     queue: a contest counts its estimate two less (its Set and its
//     window read), so that keys read twice in a burst and never again
//     do not hold their places against keys a loop reaches every round
//     (lirs/cs at 705 entries: 38.56% before, 39.35% with it).
//   - A key the ghost remembers, and an entry too large for the window,
//     skip the window but must beat the main queue's victim at the door
//     (else Set stores nothing; OnEvict sees ReasonRejected). At the
//     entry cap such a door key takes its room from the window instead,
//     which in effect displaces the main queue's victim uncontested, as
//     S3-FIFO admits a key its ghost remembers; but while the door keys
//     admitted so (16 sampled at a time by their place in the queue)
//     mostly reach the main queue's tail unread, more than four to one,
//     as in a loop, they meet the victim too, and one that loses enters
//     the window like a new key. From the climber's starting position
//     down (below), such a contest counts the door key one point down,
//     as it counts a window exit: its two requests came close together,
//     as every key's do near the turns of a loop that runs back
//     (lirs/zigzag at 95 entries: 3.3% before, 3.9% with it; LRU, which
//     equals OPT there, 4.5%). Before the door keys' fate is known, the
//     main queue's tail stands in for it: while fewer than one in eight
//     entries reaching it were read, door keys count one point down too,
//     so that a loop's second pass keeps the first fill (which the
//     sketch, starting at half full, never counted) instead of trading
//     it for the keys it reads next (zigzag at 1001 entries: 543 hits
//     in the second pass before, 881 with it, LRU 1,000; 46.70% ->
//     47.64% in all).
//   - Each shard's climber moves one scale. At the top the bias rises to
//     5 (window entries that lose the frequency contest are admitted:
//     recency wins, as for keys read again a little later than the
//     window holds them); at the bottom the window's entry target shrinks
//     from a tenth of the shard to a hundredth (frequency wins: zipf-like
//     traffic). It starts with the window at 7% of the shard. It moves on
//     what the contests turned out to be worth: every 2.5 misses per
//     entry the shard holds (a quarter of that for its first eight
//     periods, so that a new cache settles early) it compares the keys
//     a contest refused that came back through the ghost with the kept
//     victims that were read again, and steps towards the side with
//     clearly more (Caffeine climbs its window on the hit ratio instead;
//     that was noisier here). A key refused without a contest counts
//     only if it comes back soon after a long stay in the window (its
//     ghost tag the newest of its bucket, the sketch's estimate 1 with
//     this request) while door keys are mostly read, and then three
//     times: a key read again a little later than the window holds it,
//     which LRU keeps (lirs/sprite at 20%: 90.50% before, 91.34% with
//     it; LRU 92.21%). The window's ring keeps its bytes either
//     way. When the target falls, the window owes the main queue the
//     entries it holds beyond it, and each Set at the entry cap moves
//     one more from its tail to the main queue until it fits: at the
//     cap a new key takes the place of the exit it causes, so without
//     that a window whose exits are refused (a loop) never shrank
//     (lirs/loop at 506: 46.5% before, 49.3% with it). At the two
//     lowest positions the unread window entries of every other Set
//     are refused without a contest (in a main queue of 32 entries or
//     more), as S3-FIFO refuses them: each contest moves the victim it
//     keeps to the main queue's head, and with a window that small
//     nearly every miss turned the hand (synthetic suite 0.67 points
//     below the best of six before, 0.51 after).
//
// Why this design: on the published traces that come with Caffeine's
// simulator (cache2k, scarab, corda, Cloud Physics, AdaptSize and the
// LIRS traces) the TinyLFU admission this cache had before, with no
// window, was 3 to 30 points behind the best of otter, theine, ARC and
// LRU (corda: every key is read again once, and the filter refused every
// newcomer); simulated alternatives (S3-FIFO, SIEVE, Caffeine's own
// W-TinyLFU, windows of other sizes, a climbing window) and the engine's
// figures are in DESIGN.md and results/hitratio/shardcache-policy.md.
// Hits reach the sketch only through the slot's 2-bit use count when the
// entry passes a queue's tail, so a lookup still touches one line. The
// sketch starts counting once a shard is half full (as Caffeine sizes
// its sketch only then): before that no contest is held, and skipping
// its random access made filling a cache a fifth cheaper.
//
// Relocations and promotions copy entries within the shard's ring, so
// making room for one entry gives at most 16 second chances and copies at
// most max(n, 64 KiB) bytes for an n-byte entry: its second chances copy
// no more than the Set itself, even with large hot values. A read entry
// the budget's bytes cannot move is not evicted to make room for an
// entry from the window, or for a new key bound there: the window's entry
// goes instead (get-or-set/umem: 74.5% hits against 71.9%). An entry that can
// never fit is refused with ErrEntryTooLarge before anything is evicted.
//
// The other policies stay selectable (Config.Policy) for A/B: S3FIFO (the
// same queues, no sketch, no contest: unread window entries are always
// evicted), TinyLFU (no window: admission at the door against the CLOCK
// victim), SecondChance (CLOCK over one ring, everything admitted) and
// FIFO.
//
// # Expiry
//
// Expiry times are nanoseconds on a monotonic clock (time since New by
// default, injectable for tests), so wall-clock steps change nothing. An
// expired entry is never returned; it is removed by the cleanup goroutine
// (which scans each queue's ring in bounded batches and stops on Close),
// by DeleteExpired, by Delete, or when eviction reaches it.
//
// # Callbacks
//
// Config.OnEvict receives each entry that leaves the cache (expired, no
// space, deleted, or not admitted) with its reason. Entries are copied out
// under the shard lock and the callback runs after the lock is released,
// so it may call back into the cache.
//
// # Batched lookups
//
// GetBatch looks many keys up at once, overlapping their cache misses: it
// hashes a group of 16 keys and prefetches every home slot (PREFETCHT0 on
// amd64, PRFM on arm64, plain loads elsewhere) one group before looking
// the group up (and the next line too when a home slot ends its line),
// and the ring records of matching non-inline entries just before (in an
// inline table, until a group has none); the lookups then read as Get
// does. Each shard publishes its current table's address and length
// atomically, and that memory stays mapped while any GetBatch or Get can
// reach it (Close also waits for the batches in flight).
//
// The gain is the overlap of misses, so it needs misses: over a million
// keys a batch took half a Get's time per key; over a cache whose index
// fits the CPU's caches (16,384 keys) a batch took about a tenth more
// than Get, the prefetches being work with nothing to hide.
//
// # Reads without a lock
//
// Get takes no lock and executes no locked instruction. Each shard has a
// sequence number: a writer, holding the shard's lock, makes it odd before
// it changes the index, the rings or a slot, and even again after. Get
// loads it, looks the key up in the table and ring the shard publishes,
// appends the value to dst and loads it again: if it was odd or changed,
// dst is cut back and the read is retried, and after four failed tries
// Get takes the read lock. x86-64 keeps loads in order; on weaker machines
// a fence keeps the reads before the second load (fence_other.go).
//
// A writer may change any byte the optimistic read looks at, so the
// lookup treats every word as untrusted: the probe stops after n slots, a
// ring offset must lie inside the ring and its queue, an entry's header,
// key and value must fit in its queue's ring, an inline key and value in
// 22 bytes; it never indexes outside the mappings and never panics, and a
// value longer than dst's spare capacity is appended only after the
// sequence number has validated its length, so a torn read never
// allocates. The queue boundary is fixed at New, so an offset read
// anywhere picks a valid ring.
//
// Memory a reader may touch stays mapped while it might: Close gives the
// pages of the rings and indexes back (MADV_DONTNEED: they read as zeros,
// and a reader that read them fails validation) and unmaps only the
// sketches and ghosts, which only writers touch; the mappings of the rings
// and index tables are unmapped by a cleanup (runtime.AddCleanup) once the
// shard array is garbage. Index growth gives old tables' pages back the
// same way, never unmapping.
//
// The use count is the top byte of the slot's meta word, the hint byte:
// Get stores it with a plain one-byte store after validation. The store
// may land after a writer has moved another entry into the slot or
// emptied it; that entry then gets a use it did not have, or an empty slot
// a nonzero top byte. Both are harmless: the byte means nothing but the
// use count, a slot is empty when its used bit is clear, and writers store
// whole words. Hits, misses and collisions are counted with plain
// increments, which may be lost when goroutines look up keys of one shard
// at once (Stats says so); the climber and the sketch's aging read them,
// for which an approximate count does not matter.
//
// Under the race detector Get reads optimistically too: the detector does
// not see the off-heap mappings, and the rest of the path (the sequence
// number, the published table, the counters) is what it checks.
// TestOptimisticReadStress, in which writers overwrite, delete, evict,
// promote, grow and reset while readers check every value byte for byte,
// fails within a run when the final validation is removed. Config.
// LockedReads makes Get take the read lock instead (with a compare-and-
// swap for the use count), for A/B in the benchmarks. The commonest cases
// of an inline table (a hit on an inline entry, or a miss within the first
// 8 slots of the probe run) have a small path of their own
// (Cache.getInline), which Get calls itself, so that fewer instructions
// lie between one lookup's slot load and the next.
package shardcache
