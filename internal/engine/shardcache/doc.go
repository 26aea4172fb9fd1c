// Package shardcache is cachebench's own in-memory cache: sharded,
// byte-bounded, evicting, with TTLs, and invisible to the garbage
// collector however many entries it holds.
//
// # Layout
//
// A key's 64-bit hash (xxhash64) picks a shard with its low bits. Each
// shard, written under its own lock and read without one (see "Reads
// without a lock"; padded to 128 bytes so that shards do not share cache
// lines), owns off-heap memory (anonymous mappings: one holds every
// shard's ring, one every shard's index tables, and each TinyLFU sketch
// has its own):
//
//   - a ring of bytes holding every entry as a 6-byte header (value length
//     and flags, key length), an 8-byte expiry when the entry has a TTL, the
//     key and the value. Entries are appended at the head and may wrap
//     around the ring's end.
//   - an open-addressing index (linear probing, fast-range home slot from
//     the hash's top 23 bits, backward-shift deletion, at most 3/4 full,
//     doubled on demand) of 32-byte slots, or of 8-byte slots with
//     Config.Index = CompactIndex. The index has two address ranges
//     reserved at its largest size, in one mapping that holds every
//     shard's (all first ranges side by side, then all second ones); a
//     doubling rebuilds the table into the other range, whose fresh pages are populated in one madvise call, so
//     growth costs no mmap or munmap and no page fault per slot; pages of
//     the old range are given back only when both tables together would
//     exceed one largest table. A slot's first 8 bytes hold a hint byte
//     (the 2-bit use count), a used bit, the 23 hash bits and the
//     entry's 32-bit ring offset; in a 32-byte (inline) slot, an entry whose key and value
//     fit in 22 bytes and has no TTL is also copied into the rest.
//
// The layout is chosen at New for the whole cache. Inline slots serve
// small entries in one dependent cache miss but cost ~43 bytes of index
// per entry at the load limit; compact slots cost ~11 and always read the
// ring after the slot. For entries too large to inline the inline slot's
// 24 spare bytes are only memory, so the cachebench adapter picks compact
// slots when the workload's largest value exceeds 22 bytes.
//
// With Config.HugeIndex that mapping is advised MADV_HUGEPAGE. Each
// shard's table is a few hundred KiB, too small for a 2 MiB page of its
// own, so while every table had its own mapping huge pages could not back
// them (an earlier MADV_HUGEPAGE on every mapping changed nothing for
// lookups, and slowed inserts 3.5× through the rings); in one mapping
// they can, and a lookup's slot load then needs no walk through 4 KiB
// page tables. The kernel may back a whole 2 MiB range, second tables
// included, so both tables count against MaxBytes then. It is off by
// default and in the cachebench adapter: see "Where the time goes".
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
// (half of the shard's share may go to an inline index, a quarter to a
// compact one; with Config.MaxEntries, only what that many entries need,
// and the ring gets the rest; with HugeIndex the index is charged twice,
// for the second table), plus TinyLFU's sketch; sizes are
// whole pages
// and pages are only backed once written, so memory grows with use up to
// the limit. When MaxBytes is below shards × 32 KiB the shard count is
// halved until it fits; Stats reports the effective count and capacity.
// Reset gives the pages back.
//
// Config.MaxEntries also caps the entries held, across shards: each shard
// keeps its count and adds the change to one shared atomic counter once
// it amounts to 1/64 of the shard's share (so the counter's cache line
// moves between cores once per that many inserts, not on every one); a
// Set of a new key evicts from its own shard's tail while the published
// total plus the shard's own unpublished change is at the cap. Since
// inserts spread evenly over shards, each shard then evicts about as
// often as it inserts, and the shard counts stay where the fill left
// them: no capacity is lost to uneven shards, where a per-shard cap
// without a margin would evict during a fill of exactly MaxEntries keys.
// The overshoot is bounded by the unpublished changes (under 1/64 of the
// cap) plus one entry per shard that was empty at the cap (shards are
// reduced until each has 64 entries of the share, so that is under 1/64
// too). Each shard's index is sized for its share plus five standard
// deviations of the binomial spread (at 20M entries and 256 shards:
// +1.8%), not for a fixed 10% margin. In the hit-ratio lab's synthetic
// traces the cache now holds its entry budget (at most +0.3%), where it
// held up to 1.5× with per-shard caps and a margin.
//
// # Eviction and admission
//
// When a shard's ring lacks room for a new entry, or its index has reached
// its size limit, entries are taken from the ring's tail, oldest first.
// Holes left by deleted or overwritten entries are skipped. An entry read
// since it was written is copied to the head once, with its use count
// cleared, instead of being evicted (CLOCK; at most 16 such moves per Set,
// so a Set stays O(1)). FIFO evicts regardless. An entry that can never
// fit is refused with ErrEntryTooLarge before anything is evicted.
//
// The default policy, TinyLFU, also decides whether a new key gets in at
// all. Each shard keeps a count-min sketch of 4-bit counters (one 8-byte
// word of 16 counters per entry the shard can hold, a key owning four
// nibbles of one word, halved every 10 uses per entry held), off the Go
// heap and only touched under the exclusive lock: Set counts its key, and
// Get counts a hit in the slot's 2-bit use count (a plain byte store to
// the line the lookup loaded, at most three per stay; see "Reads without
// a lock"), which joins the sketch when the entry reaches the tail. When a new key would evict an
// unexpired entry that CLOCK did not save, it is stored only if the sketch
// estimates it more used than that victim; otherwise Set stores nothing
// (OnEvict sees ReasonRejected, Stats counts a rejection) and the victim
// moves to the head, so that the next new key meets the next entry rather
// than the same winner (a victim left at the tail shielded everything
// behind it: hot/cold hit ratio 43.3% against 43.7% with the move).
//
// Why TinyLFU is the default: on cachebench's get-or-set workloads
// (200,000 keys, capacity 10% of them, values of 64–1024 bytes) it holds
// the hit ratio of otter v2's W-TinyLFU, where SecondChance, which admits
// every one-time key, is 14 points lower on hot/cold; and since hits only
// touch the slot's line, lookups cost the same as with SecondChance (the
// first version bumped the sketch on every hit: a second cache line and a
// compare-and-swap, +40% per lookup). Its costs: 8 bytes per entry of
// memory for the sketch (sized from MaxEntries when given, else from a
// quarter of the index limit), and no recency window, so a key must be
// asked for twice before it can displace a used one; ties go to the
// victim (admitting ties lost 4 points on hot/cold and 3.6 on zipf).
// On the hit-ratio lab's synthetic traces (cachebench hitratio, 1M
// requests, capacities 1%, 5% and 10% of the objects) its object hit
// ratio is above otter's or at most 1.4 points below (loop at 10%), where
// SecondChance was up to 10 points below (zipf at 1%); its byte hit ratio
// is up to 2.7 points below otter's, 4.2 on the shift trace at 10%, whose
// working set moves (SecondChance, which admits everything, does better
// there). These figures were taken before MaxEntries became a global
// cap, when the cache held up to 1.5× its entry budget on these traces
// (the lab flagged it); with the cap (entry budget held, +0.3% at most;
// compact index) the same traces at 1%, 5% and 10% give object hit
// ratios from 1.3 points below otter's (mix at 1%; loop at 5%: 0.82%
// against 1.35%) to 2.6 above (shift at 1%), byte hit ratios at most 1.5
// points below (mix at 1%).
// TestTinyLFUHitRatio shows the gain with entries large enough for the
// sketch's memory not to matter; with ~90-byte entries the sketch's 8
// bytes per entry cost more capacity than admission gains there.
// SecondChance and FIFO stay selectable in Config.Policy.
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
// space, deleted, or with TinyLFU a new entry not admitted) with its
// reason. Entries are copied out under the shard lock and the callback
// runs after the lock is released, so it may call back into the cache.
//
// # Batched lookups
//
// GetBatch looks many keys up at once, overlapping their cache misses: it
// hashes a group of 16 keys and issues a prefetch instruction (PREFETCHT0
// on amd64, PRFM on arm64, plain loads elsewhere) for every home slot; it
// does the same for the next group before looking the current one up,
// after reading its slots to prefetch the ring records of matching
// non-inline entries; the lookups then read optimistically as Get does.
// The prefetches need no lock either: each shard publishes its current
// table's address and length atomically, and that memory stays mapped
// while any GetBatch or Get can reach it (Close also waits for the
// batches in flight).
//
// # Reads without a lock
//
// Get takes no lock and executes no locked instruction (on x86-64 an
// atomic load is a plain MOV; a lock's acquire and release, an atomic add
// or a compare-and-swap are each a LOCK-prefixed full barrier). Each
// shard has a sequence number: a writer, holding the shard's lock, makes
// it odd before it changes the index, the ring or a slot, and even again
// after (shard.lock and shard.unlock wrap every exclusive section). Get
// loads it, looks the key up in the table and ring the shard publishes
// atomically, appends the value to dst, and loads it again: if it was odd
// or changed, dst is cut back and the read is retried, and after four
// failed tries Get takes the read lock. x86-64 keeps loads in order; on
// weaker machines (arm64) a fence (a read-modify-write on a local word)
// keeps the reads before the second load (fence_other.go).
//
// A writer may change any byte the optimistic read looks at, so the
// lookup (shard.find) treats every word as untrusted: the probe stops
// after n slots, a ring offset must lie inside the ring, an entry's
// header, key and value must fit in it, an inline key and value in 22
// bytes; it never indexes outside the mappings and never panics, and a
// value longer than dst's spare capacity is only appended after the
// sequence number has validated its length, so a torn read never
// allocates. The table's base and length are loaded separately and may
// belong to different tables; both regions hold the largest table, so
// any pairing stays inside the mapping.
//
// Memory a reader may touch must stay mapped while it might: Close gives
// the pages of the rings and indexes back (MADV_DONTNEED: they read as
// zeros afterwards, and a reader that read them fails validation) and
// unmaps only the TinyLFU sketches, which only writers touch; the two
// mappings that hold every shard's rings and index tables are unmapped by
// a cleanup (runtime.AddCleanup) on the shard array once it is garbage,
// and every Get holds a pointer into it until its last access. The cost:
// a closed cache's address space (not its memory) stays reserved until
// the next garbage collection that finds it unreachable, two mappings per
// cache (the rings were one mapping each before, 256 by default). Index
// growth gives old tables' pages back the same way, never unmapping.
//
// The use count that TinyLFU and CLOCK read is the top byte of the slot's
// meta word, the hint byte; Get stores it with a plain one-byte store
// after validation. The store may land after a writer has moved another
// entry into the slot or emptied it: that entry then gets a use it did
// not have, or an empty slot gets a nonzero top byte. Both are harmless
// because the byte means nothing but the use count, a slot is empty when
// its used bit (not the whole word) is clear, and writers store whole
// words. This took 6 bits from the hash tag (29 to 23): a tag matches a
// wrong key with probability 2^-23 per probe (the key is compared in
// full anyway), and fast-range home slots resolve tables of up to 2^23
// slots per shard (beyond that, homes are every other slot, still
// correct). Hit ratios did not move (cachebench run get-or-set hot/cold
// and zipf at 200,000 keys: 48.2% and 91.5% against 48.0% and 91.5%
// before, otter 43.8% and 83.5% in the same run; hit-ratio lab, zipf
// trace at 1% and 10%: within 0.1 point of before).
//
// Hits, misses and collisions are counted with plain increments, which
// may be lost when two goroutines look up keys of one shard at once
// (Stats documents it); the sketch's aging reads the same counters, for
// which an approximate count does not matter.
//
// Under the race detector (build tag race) Get reads optimistically too:
// the detector does not see the off-heap mappings, so it has nothing to
// report there, and the rest of the path (the sequence number, the
// published table, the counters, atomic under race) is what it checks.
// TestOptimisticReadStress, which has writers overwrite, delete, evict,
// grow and reset while readers check every value byte for byte against
// the versions written for its key, fails within a run when the final
// validation is removed, with or without -race.
//
// Config.LockedReads makes Get take the read lock instead (with a
// compare-and-swap for the use count, as before the optimistic read);
// the benchmarks switch the same setting between blocks of lookups, so
// that both paths are compared in one process. The cachebench adapter
// leaves it off (next section).
//
// The commonest cases of an inline table, a hit on an inline entry or a
// miss within the first 8 slots of the probe run, have a path of their
// own (Cache.getInline): a small function that loads the slots, compares
// and copies, with no decoded entry and a small frame, and leaves
// everything else to the general optimistic read. It is what made the
// optimistic read faster (below).
//
// # Where the time goes
//
// Measured on the 2-core KVM development machine (Sapphire Rapids, no
// hardware counters in the guest) while other jobs shared it, so only
// ratios taken in one run mean anything; the figures are thread CPU time
// (cpu-ns in the benchmarks), which leaves out time spent waiting for a
// core. 1M keys key_%d → val_%d, request keys in access order.
//
// On a quiet machine, through cachebench run (insert-lookup, 1M keys,
// count 5, --cpu 1,2; results/, the run after the optimistic read
// landed): lookup 156 ns (145–166 over the repetitions), 0.41×
// fastcache's 384 and 0.39× map's 396, 0.81× the run's dependent DRAM
// load (193 ns), so consecutive lookups now overlap their misses; the
// version before, reading under the lock through the general lookup,
// took 327 ns in the previous quiet run, 0.57× fastcache. What that run
// still misses, and why as far as this machine can tell:
//
//   - GetBatch 98 ns per key, 1.59× single lookups (3× hoped for): the
//     gain of batching is the overlap single lookups lacked, and they
//     have much of it now; a batch still pays the hash, the prefetch and
//     the slot test per key. Quiet profile (BenchmarkGetBatch/tinylfu 126
//     cpu-ns per key against BenchmarkGet/tinylfu 225): getInline 22%
//     (~27 ns, waiting on slot lines prefetched but not yet arrived), the
//     general lookup for keys off the inline path 28% (~35 ns), hashing
//     and forming the prefetches 14% (~18 ns), the prefetch instructions
//     5.5%, the record prefetch 4%.
//   - GOMAXPROCS 2: 8.79M against 6.45M lookups/s, 1.36×. Reads take no
//     lock and write no line another core reads, and the slower caches
//     of the same run scale further (freecache 1.92×, bigcache 1.92×,
//     otter 1.82×, fastcache 1.53×, map 1.30×): the faster one proc's
//     lookups already overlap misses, the less the second vCPU adds, as
//     if the two shared the memory system's outstanding-miss capacity
//     (the guest cannot see whether its vCPUs are sibling hyperthreads
//     on the host).
//   - Insert 464 ns, 1.29× fastcache's 359 (0.7× hoped for). Part of
//     the gap is the benchmark's repetitions: fastcache keeps its chunks
//     in a process-wide free list and never unmaps them, so from its
//     second repetition on its Sets write pages that are already backed
//     (fastcache 415 and 419 ns in the first two repetitions, 279–364
//     after), while shardcache gives its pages back on Close and faults
//     them in again in every repetition (415–572). Against fastcache's
//     first repetitions it is 1.06–1.1×. Quiet profile of a fill
//     (BenchmarkPeerFill/shardcache, 749 ns per key in that run):
//     memmove 27% (~200 ns: key and value copied into the slot and ring,
//     with the ring's first-touch page faults), the existence probe
//     (find, lookup) 27% (~200 ns: the slot line's miss), index growth
//     7%, the populate madvise calls 5%, lock and unlock about 3%.
//
// The measurements behind these and earlier versions, mostly on the busy
// machine:
//
//   - Lookup (BenchmarkGet): 155–234 ns, one dependent DRAM miss on the
//     slot line (key and value are inline) plus the page walk for it: the
//     1M-key index is ~43 MB of 4 KiB pages, far beyond the TLB's reach.
//     Huge pages for it (Config.HugeIndex, BenchmarkGet/tinylfu-huge-pages
//     against tinylfu, each in its own process, interleaved): 23% less
//     CPU per lookup with an index sized without MaxEntries (median of
//     six pairs, 253 against 329 cpu-ns), 7% less with the adapter's
//     MaxEntries sizing (three pairs, 297–304 against 322–325), while
//     GetBatch took ~10% more (197–213 against 178–190 cpu-ns per key)
//     and RSS per entry at 2M gc-pause entries grew from 138 to 141; and
//     through cachebench run (1M keys, count 2, alternating binaries) it
//     showed no difference beyond the machine's noise (shardcache
//     293–350 ns with it, 295–340 without). So it stays an option, off
//     by default, for a quiet machine to decide. Through the cachebench adapter
//     (BenchmarkPeerGet, same run): shardcache 231–284 ns, a Go map behind
//     an RWMutex 444–472, fastcache 458–469, freecache 575–578, bigcache
//     713–896; so 0.50–0.61× fastcache and 0.52–0.60× map, short of the
//     0.45× and 0.5× targets. Of a Get, pprof puts 80% on the slot load
//     itself, 7% on RLock, RUnlock and the use count, the rest on the
//     hash, the key compare and the copy (a 313 ns run: ~250 ns waiting
//     for the slot line). Getting below one miss plus a walk needs fewer
//     page walks (one mapping for all shards' indexes with huge pages,
//     which makes growth and the give-back of old tables coarser) or
//     fewer instructions between one lookup's slot load and the next:
//     removing the locked instructions alone gained little; fewer
//     instructions did more (next point).
//   - Optimistic against locked reads (BenchmarkGetReadPaths: blocks of
//     16,381 lookups alternate between the paths on one cache in one
//     loop, so that the machine's load falls on both; thread CPU per
//     lookup; busy machine, three runs of 8M lookups each). The locked
//     path is the read as it was before (lookup, read lock, a
//     compare-and-swap for the use count). The optimistic read through
//     the general lookup alone (find, the entry it returns) was no
//     faster: the locked one took 0.87–1.02× its time with SecondChance,
//     0.92–1.01× with TinyLFU, and from two goroutines
//     (BenchmarkGetParallelReadPaths -cpu 2, both on the same path at a
//     time) 0.92–0.97×. A throwaway Get with no lock, no compare-and-swap
//     and no atomic counter at all (unsafe with writers) took 263 ns in
//     the same run as 295 for Get, within the noise. So on this machine
//     the lock's two LOCK XADDs and the compare-and-swap do not hold the
//     next lookup's miss back much (a stand-alone test here overlapped
//     random loads over 64 MB to 9–12 ns each with two locked
//     instructions per load); what serialises consecutive lookups is the
//     work between one slot load and the next (hash, calls and frames,
//     the entry copied out of find: more micro-ops than the out-of-order
//     window holds while a miss is pending) and the branches on the
//     loaded word, whose mispredictions discard the next lookup's early
//     work (no hardware counters in the guest to show which). With an
//     inline path for hits in the home slot only, the locked read took
//     1.06–1.09× the optimistic one's CPU with SecondChance and
//     1.08–1.12× with TinyLFU (1.07–1.08× from one goroutine and
//     1.04–1.11× from two in BenchmarkGetParallelReadPaths); the same
//     home-slot path added to the locked read (a throwaway) left
//     1.01–1.04× and 1.03–1.06×: about 5% from fewer instructions, 2–5%
//     from no lock and no compare-and-swap. With getInline as it is (hits
//     and misses in the first 8 slots: at ~69% load about a third of the
//     keys are not in their home slot) 1.09–1.10× with both policies.
//     pprof of BenchmarkGet still puts most of a lookup on the slot load
//     (the first load of the meta word in getInline and find). The
//     adapter reads optimistically. A plain sync.Mutex instead of the
//     RWMutex, now that only the fallback and Has, Len and Stats read
//     under it, left a fill (BenchmarkFill/tinylfu) unchanged: 810–1032
//     ns per key against 823–873 in consecutive runs. Through cachebench
//     run (insert-lookup, 1M keys, count 3, --cpu 1,2; busy machine; two
//     pairs of runs, this version then the one before, each pair within
//     minutes): lookup 266 and 289 ns, 0.47× and 0.48× fastcache, 0.43×
//     and 0.37× map, 1.37× and 1.26× the run's dependent DRAM miss, and
//     GetBatch 1.82× and 2.02× single lookups; before, 322 and 354 ns,
//     0.67× and 0.45× fastcache, 0.41× and 0.52× map, 1.95× and 1.62× the
//     miss, GetBatch 1.43× and 1.60×. GOMAXPROCS 2 gave 1.30× and 1.03×
//     the lookup QPS of GOMAXPROCS 1 (before: 1.00× and 1.13×): the other
//     jobs held the second core, so these say nothing about scaling.
//   - GetBatch: 116–163 ns per key against 155–371 single, 1.2–2.3× in
//     the same run (the busier the machine, the larger the ratio), not
//     the 3× hoped for. Prefetching helps (without it: 153–170 ns;
//     prefetching one group ahead changed nothing measurable), but
//     the lookups after it still show most of their time on the slot
//     load in pprof (a 2.7 s profile: 340 ms on the first test of the
//     loaded meta word, 200 ms in the prefetch routine itself); a
//     stand-alone test on this machine overlaps random loads over 64 MB
//     to 9–12 ns each, also with two locked instructions per load.
//     Replacing PREFETCHT0 with plain loads of the same lines left it at
//     150–165 cpu-ns per key (the loads overlap within a group of 16 as
//     prefetches would), so the prefetches are not dropped; huge pages
//     (above) did not help it either. The index's load factor matters:
//     sized without MaxEntries (~48% full at 1M keys) GetBatch took
//     111–154 cpu-ns per key, sized by MaxEntries (~69% full, probe runs
//     reach the next line more often, and only the home line is
//     prefetched) 155–194; an index sized for 50% load with MaxEntries
//     gave 148–167 against 155–194 in one interleaved A/B, too noisy to
//     adopt. With the optimistic read and getInline (BenchmarkGetBatch,
//     same run): tinylfu 126–131 cpu-ns per key, tinylfu-locked 158–171.
//     Groups of 4, 8 and 16 keys prefetched 1 to 3 groups ahead then
//     gave 110–139 cpu-ns per key, all within the noise of one another
//     (a throwaway sweep, three runs each): the group stays at 16, one
//     group ahead.
//     Not tried: prefetching the home line's successor.
//   - Insert (BenchmarkPeerFill, a fresh cache filled with 1M keys, index
//     growth included): shardcache 503–657 ns per key, fastcache 408–489,
//     bigcache 701–795, freecache 732–819: 1.1–1.3× fastcache, not 0.7×.
//     With SecondChance a fill costs 455–468 ns (BenchmarkFill); TinyLFU
//     adds a sketch word per Set, loaded before the index probe so that
//     the two misses overlap (+15%; one after the other it was +60%).
//     pprof of the fill: copies into the slot and ring 37% (with the
//     first-touch faults of the ring's pages), set 15%, probing 8%, index
//     growth 7%.
//   - GOMAXPROCS 2 against 1 (BenchmarkGetParallel): 1.2–2.1× in the
//     same run; the spread is the other jobs on the two cores. Through
//     cachebench run --cpu 1,2 (1M keys, count 3): lookup 4.78M against
//     3.99M QPS, 1.20×, with the other helpers' jobs on the machine. The
//     entry cap's shared counter is written once per 1/64 of a shard's
//     share of inserts and read (not written) on the others, and sits on
//     its own cache line, as does GetBatch's in-flight counter, off the
//     line of the fields every Get reads.
//   - Memory: resident bytes per entry at 2M entries of 14+100 bytes
//     (cachebench gc-pause --entries 2000000, each cache in its own
//     process, same run, busy machine): shardcache 138–139, fastcache
//     155–156 (0.89×); with 32-byte slots and the 10% margin it was 177
//     against 159. Per entry: 120 in the ring (6-byte header, key,
//     value), ~11 of compact index (8-byte slots at 3/4 load for the
//     share plus 5 sd: 7,812 + 442 entries per shard), ~8.5 of TinyLFU
//     sketch, and the Go runtime. At 20M entries the margin drops to
//     1.8% of the share: the quiet 20M run (results/, cachebench
//     gc-pause --count 1) measured shardcache 137 against fastcache's 147
//     (0.93×); the 6-byte ring header and the sketch's 8 bytes are what
//     is left above the entries' own 114 bytes.
package shardcache
