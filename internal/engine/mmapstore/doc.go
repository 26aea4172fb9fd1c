// Package mmapstore is cachebench's own write-once key/value file store:
// a file built once from a stream of pairs, then memory-mapped read-only
// and queried with zero-copy lookups.
//
// The format (FORMAT.md, version 4; other versions are refused with
// ErrVersion: rebuild them) is a 128-byte checksummed header, a
// records section, an index of 128-byte buckets and a table of one
// checksum per 256-byte block of records and index. A bucket, an aligned
// pair of cache lines, holds up to eight entries: a record of up to 40
// bytes (2 + key + value, by default) inline, a larger one as a 15-bit
// tag and the 48-bit offset of its record in the records section. A
// lookup hashes the key, takes its home bucket from the high half of
// hash × buckets, compares its 8-bit tag with the bucket's eight in one
// 64-bit word and compares the whole key of each matching entry; it goes
// on to the next bucket only while the bucket's overflow bit says that
// keys passing it live further on. The builder knows every key and packs
// them in home-bucket order, so at the default fill (0.65 of the bucket
// bytes) 90% of the 1M key_%d keys sit in their home bucket and nearly
// all others in the next one: a hit on a small record is one bucket load,
// one dependent cache miss where format version 2 (8-byte slots pointing
// into the records, no longer read) took two. Comparing the
// tags eight at once instead of walking the entries matters as much as
// the miss: a walk's exit point differs from key to key, the CPU
// mispredicts it, and the misprediction stops the next lookups from
// starting early (a walking version of the same layout was no faster
// than version 2).
//
// Where the time goes (1M keys key_%d → val_%d, request keys in access
// order, one goroutine, warm page cache; BenchmarkGet, BenchmarkHash and
// BenchmarkGetBatch on the 2-core dev machine while it was shared with
// other work, so ranges over three runs): hashing 7–8 ns; a lookup whose
// bucket is in the CPU caches 20–42 ns in all (BenchmarkGet/cached;
// 22–30 in a later run, with the 10-byte keys it now uses); a
// lookup in the 1M file 230–270 ns, against 325–355 for the same pairs
// in a version-2 file and 420–520 for a Go map in the same runs
// (0.44–0.64× the map). The ~200 ns beyond the cached figure is the
// bucket's miss: one DRAM access and, on 4 KiB pages over a 37 MiB
// index, a TLB miss (the machine's dependent-load latency is 150–230 ns).
//
// GetBatch hashes keys and prefetches both lines of their home buckets
// in groups of 4, 3 groups (12 keys, about half a microsecond) ahead of
// the key it resolves. It resolves the common case in its own loop: a
// key of 8 to 16 bytes (its hash words read once, the hash inlined),
// one tag candidate in the home bucket or, when the home bucket has none
// and its overflow bit is set, in the next one, an inline entry whose
// key is compared as two 64-bit words; a home bucket with no candidate
// and no overflow bit is a miss. Anything else goes through the lookup
// above, so a batch returns exactly what Get returns (tested over every
// key length, misses sharing a stored key's bucket and tag, the
// corruption sweep and the bucket fuzzer). Per key, BenchmarkGetBatch/v3
// at 40 ns, by pprof: 12 ns waiting to issue prefetches (the line fill
// buffers are full: the batch runs as fast as the memory system returns
// lines), 6 waiting for the next bucket of the tenth of the keys that
// live there (not prefetched, see below), 3 hashing, 6 forming the
// groups and bucket addresses, 7 the in-loop resolution, 1.5 the
// caller's function, 1.5 the loop, 1.3 the fallback lookups. Without
// misses (BenchmarkGetBatch/cached, a 1,000-key file) a batch costs
// 17–22 ns per key, against 27–35 for the earlier loop (chunks of 8 keys
// one chunk ahead, every key through the lookup above) in the same
// runs; over the 1M file, 32–38 against 52–58 (single lookups 160–190
// in those runs). In one run of BenchmarkGet and BenchmarkGetBatch
// (count 3): 27–36 ns per key batched, 124–226 single.
//
// Tried and dropped, each slower in interleaved runs on the busy dev
// machine: prefetching only a bucket's first line (1.4–2×: the second
// becomes a demand miss; no hardware prefetcher brings it); a third
// stage that fetches the second line only for the 53% of keys whose
// entry reaches into it (67–77 against 48 ns); groups of 16 one group
// ahead, or of 2 six ahead (1.18×); a per-key sliding window (a call per
// prefetch); prefetching the next bucket for keys whose home bucket has
// no candidate, either by checking every key's home bucket a group ahead
// (8% slower over all keys, though 1.2× faster on the keys outside their
// home bucket) or by deferring those keys' resolution and handing
// results to the caller a group late (3–7% slower over all keys, 1.15×
// on those keys). Groups of 8 one ahead and of 4 two or four ahead came
// within the noise of a run against itself (about 5%). Huge pages are
// not what is missing: with the index copied into transparent huge
// pages, single lookups took 75–80 ns and the earlier batch loop 30–31,
// about the same ratio as on 4 KiB pages.
//
// On a quiet machine, through `cachebench run --adapters file,map
// --workload insert-lookup` (1M keys, count 5; results/): lookup 226 ns,
// 0.41× map, 0.38× CDB, 0.14× LMDB; GetBatch 60.6 ns per key, 3.73× the
// single lookups of the same run (2.70× in the previous quiet run, before
// this loop); build 308 ns per key, 1.16× CDB's.
//
// Through `cachebench run --adapters mmapstore --workload insert-lookup
// --keys 1000000 --count 5`, eight runs alternating with the binary
// before this loop (busy machine, ratios of medians within a run): the
// batched lookup took 44–59 ns per key against 59–87 before, 3.0–4.9×
// the single lookups of the same run (before: 2.3–3.5×); the runner's
// batched loop, which checks every value as the single loop does, costs
// about what that loop costs (BenchmarkBatchFloor). Through
// `cachebench run --adapters mmapstore,map,cdb,lmdb --workload
// insert-lookup --keys 1000000 --count 5` (two runs alternating with the
// version-2 binary, busy machine): lookup 0.37–0.40× map, 0.35–0.37×
// CDB, 0.13–0.15× LMDB (version 2 in the runs between: 0.55–0.81×,
// 0.46–0.49×, 0.16–0.18×); 39.24 bytes per key on disk (version 2:
// 39.16). Building costs more than version 2 (insert 1.3–1.9× in those
// runs; Finish about 200 against 130 ns per key): Finish sorts the
// entries into home-bucket order (a counting sort that writes each
// 40-byte entry to a random place) and copies each inline record from
// the memory it was added to, two random memory accesses per key where
// version 2 made one.
//
// Open validates the header against the file's real size before touching
// any mapped byte and reads nothing else; GetChecked is Get that checks
// the blocks it reads; CheckSample checks a few buckets at a
// cost independent of the file size; Verify checks every checksum,
// record and bucket; Inspect gathers statistics. A Builder writes
// to an unnamed (Linux) or temporary file and renames it into place;
// BuildFrom drives one from a Source; a Holder swaps a rebuilt file in
// under live readers. Map is the read-only file mapping shared with the
// file-store adapters.
package mmapstore
