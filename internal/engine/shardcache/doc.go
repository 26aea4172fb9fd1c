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
// every entry that leaves (expired, no space, deleted, or not admitted),
// after the shard's lock is released, so it may call back into the cache.
// DESIGN.md, beside this file, says why each part is the way it is.
//
// # Layout
//
// A key's 64-bit hash (xxhash64) picks a shard with its low bits. Each
// shard is written under its own lock and read without one, is padded to
// 128 bytes so that shards share no cache line, and owns memory outside
// the Go heap, in anonymous mappings that hold no Go pointers:
//
//   - a ring of bytes, split into two FIFO queues side by side (the window,
//     a tenth of it, and the main queue), holding each entry as a 6-byte
//     header, an 8-byte expiry when it has a TTL, the key and the value;
//   - an open-addressing index (linear probing, backward-shift deletion,
//     at most 3/4 full, grown on demand into a second reserved range) of
//     32-byte slots that also hold entries of up to 22 bytes inline, or
//     8-byte slots with Config.Index = CompactIndex. A slot's meta word
//     holds the entry's 2-bit use count, 23 hash bits and its offset in
//     the ring;
//   - the policy's count-min sketch (8 bytes per entry) and ghost (2).
//
// A lookup loads one slot line, compares hash bits, then the full key:
// colliding keys coexist, and Delete never removes another key. With
// Config.HugeIndex each shard's index starts at its largest size on
// transparent huge pages, so that a lookup needs no page walk.
//
// # Memory limit
//
// Config.MaxBytes bounds every shard's ring plus its largest allowed
// index, sketch and ghost, in whole pages (64-byte units below 64 KiB).
// Config.MaxEntries caps the entries held across shards: each shard
// publishes its count to one shared counter in batches of 1/64 of its
// share, and a Set of a new key evicts from its own shard while the total
// is at the cap. The shard count is halved until each shard has 32 KiB,
// four entries of Config.MaxEntrySize and 512 entries of the cap.
//
// # Eviction and admission
//
// The policy is its own design, named s3fifo-tinylfu after its two
// parents: S3-FIFO's queues and ghost (Yang et al., SOSP 2023) with
// TinyLFU's frequency contests (Einziger et al.) where S3-FIFO evicts
// unconditionally, and a climber that tunes it per shard (its state is
// one value per shard, policy*.go). It acts at four points: a new key at
// the door, an entry leaving the window, a victim at the main queue's
// tail, and a hit, whose only trace is the slot's use count (Get's one
// policy step). It differs from Caffeine's W-TinyLFU in
// that new keys are always stored, the main queue is CLOCK rather than
// segmented LRU, keys the ghost remembers skip the window, and the
// climber moves on the contests' outcomes rather than on the hit ratio.
//
//   - A new key enters the window and is always stored, so a key read
//     again soon after its first read hits. A key the ghost remembers, or
//     one too large for the window, goes straight to the main queue.
//   - An entry leaving the window moves to the main queue if it was read
//     there; an unread one is kept only if the sketch estimates it more
//     used than the main queue's victim (shifted by the climber's bias);
//     the loser is evicted, and a window entry evicted goes to the ghost.
//   - The main queue is CLOCK with the 2-bit use count: a read entry at
//     its tail moves to the head with its count decremented.
//   - The climber moves on what the contests turned out to be worth:
//     refused keys that come back through the ghost (recency) against kept
//     victims read again (frequency). Towards recency it raises the bias;
//     towards frequency it shrinks the window's entry target from a tenth
//     of the shard to a hundredth.
//   - Door keys and read window exits also meet the victim while the
//     traffic looks like a loop: door keys reaching the main queue's tail
//     unread, or its entries seldom read.
//
// Hits reach the sketch only through the use count when the entry passes
// a queue's tail, so a lookup touches one line. Making room for one entry
// gives at most 16 second chances and copies at most max(n, 64 KiB) bytes
// for an n-byte entry, so a Set stays O(1) with large hot values. An entry
// that can never fit is refused with ErrEntryTooLarge before anything is
// evicted.
//
// # Expiry
//
// Expiry times are nanoseconds on a monotonic clock, so wall-clock steps
// change nothing. An expired entry is never returned; it is removed by the
// cleanup goroutine (bounded batches per tick), DeleteExpired, Delete, or
// when eviction reaches it.
//
// # Reads without a lock
//
// Get takes no lock and executes no locked instruction. A writer makes
// its shard's sequence number odd before it changes the index, the ring or
// a slot, and even after. Get loads it, looks the key up in the table and
// ring the shard publishes, appends the value and loads it again; if it
// was odd or changed, dst is cut back and the read retried, and after four
// tries Get takes the read lock. The lookup treats every word it reads as
// untrusted (bounded probes, offsets checked against the ring), so a torn
// read never panics, never reads outside the mappings and never allocates.
// Memory a reader may touch stays mapped while it might: Close gives the
// pages back and a cleanup unmaps them once the shard array is garbage.
// The use count is stored with a plain byte store after validation; a
// store that lands on a slot a writer changed meanwhile only gives another
// entry a use. Hit and miss counters are plain increments and may lose
// counts under concurrent lookups of one shard.
//
// GetBatch looks many keys up at once: it prefetches the home slots of a
// group of 16 keys one group ahead, and the ring records of matching
// entries, then reads as Get does, so that the keys' cache misses overlap.
package shardcache
