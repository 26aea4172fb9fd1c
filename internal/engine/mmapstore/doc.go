// Package mmapstore is cachebench's own write-once key/value file store:
// a file built once from a stream of pairs, then memory-mapped read-only
// and queried with zero-copy lookups.
//
// The format (FORMAT.md, version 3) is a 128-byte checksummed header, a
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
// into the records, still read, as is version 1) took two. Comparing the
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
// bucket is in the CPU caches 20–42 ns in all (BenchmarkGet/cached); a
// lookup in the 1M file 230–270 ns, against 325–355 for the same pairs
// in a version-2 file and 420–520 for a Go map in the same runs
// (0.44–0.64× the map). The ~200 ns beyond the cached figure is the
// bucket's miss: one DRAM access and, on 4 KiB pages over a 37 MiB
// index, a TLB miss (the machine's dependent-load latency is 150–230 ns).
//
// GetBatch prefetches both lines of every home bucket one chunk of 8 keys
// ahead of resolving the previous chunk: 43–56 ns per key in the quieter
// runs, 2.5–3.6× the single lookups beside them. It cannot go much lower:
// resolving a key costs about the cached figure, and a core keeps about
// 16 lines (8 buckets) in flight; single lookups in a loop already
// overlap with each other (110–200 ns each when the machine was quiet,
// below one miss), so the ratio stays near 3 on this machine.
//
// Through `cachebench run --adapters mmapstore,map,cdb,lmdb --workload
// insert-lookup --keys 1000000 --count 5` (ratios of medians within one
// run, two runs alternating with the version-2 binary, busy machine):
// lookup 0.37–0.40× map, 0.35–0.37× CDB, 0.13–0.15× LMDB (version 2 in
// the runs between: 0.55–0.81×, 0.46–0.49×, 0.16–0.18×); GetBatch
// 2.9–3.3× single lookups (version 2: 1.7–2.2×; in three earlier runs
// 3.3, 3.6 and 2.9×); 39.24 bytes per key on disk (version 2: 39.16).
// Building costs more than version 2 (insert 1.3–1.9× in those runs;
// Finish about 200 against 130 ns per key): Finish sorts the entries
// into home-bucket order (a counting sort that writes each 40-byte entry
// to a random place) and copies each inline record from the memory it
// was added to, two random memory accesses per key where version 2 made
// one.
//
// Open validates the header against the file's real size before touching
// any mapped byte and reads nothing else; GetChecked is Get that checks
// the blocks it reads; CheckSample checks a few buckets (or slots) at a
// cost independent of the file size; Verify checks every checksum,
// record, bucket and slot; Inspect gathers statistics. A Builder writes
// to an unnamed (Linux) or temporary file and renames it into place;
// BuildFrom drives one from a Source; a Holder swaps a rebuilt file in
// under live readers. Map is the read-only file mapping shared with the
// file-store adapters.
package mmapstore
