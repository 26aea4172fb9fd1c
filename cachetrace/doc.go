// Package cachetrace records the requests a Go service makes to its cache
// as a trace that cachebench replays: call Record(key, size) on each
// request, and `cachebench hitratio --trace FILE` then tells how each cache
// and policy would have done on that traffic, at every size, beside
// Belady's optimal policy.
//
// What is written: libCacheSim's oracleGeneral records (24 bytes, little
// endian: u32 time in Unix seconds, u64 object id, u32 size, i64 next
// request, always -1 here), zstd compressed, in files named
// NAME.000001.oracleGeneral.zst, NAME.000002..., in the directory given.
// No key bytes leave the process: the object id is the key's 64-bit XXH64
// hash, the hash cachebench's text trace readers give a key.
//
// Encoding: by default the package writes the zstd frames itself
// (frame.go). They are standard zstd (RFC 8878), which any decoder reads,
// specialised for these records: the -1 that ends every record, and the
// time when it is the previous record's, are stored as matches of the
// previous record, and the rest as literals. Encoding a record is a copy
// of its id and size (and time), and a file holds 12 bytes per record
// while many requests share each second, 16 when they come slower than
// one a second: half or two thirds of the records' 24 bytes.
// Options.Compact uses klauspost's general zstd encoder instead, which also
// finds the keys requested again: smaller files on most traffic, for
// several times the writer's CPU per record, which a busy service pays in
// dropped records. The default is the one that keeps up with the request
// rates the package is for.
//
// Sampling: with Rate r below 1, a key is recorded when its hash falls in
// a fraction r of the hash space, so every request of a recorded key is
// kept and the others are dropped at the cost of one hash and one compare
// (spatial sampling, as SHARDS does; replay the trace with capacities
// scaled by r).
//
// Concurrency and cost: Record may be called from any number of
// goroutines. A recorded request is written into one of several sharded
// buffers under that shard's lock (the shard is picked by the processor
// the goroutine runs on, the next free one when it is busy, so that
// goroutines on different cores do not share a buffer) and allocates
// nothing; a background goroutine encodes full buffers and writes them.
// Records of different shards may reach the file out of order within a
// window of at most Shards x BatchRecords requests. When the writer falls
// behind (a slow disk), a full buffer is dropped rather than making a
// request wait; Stats counts what was dropped.
//
// Rotation and crashes: a file is closed and the next one begun once
// MaxFileBytes compressed bytes are written. The buffered records are
// written and the zstd stream flushed every FlushInterval, so a process
// that dies loses at most that much traffic, and leaves a file whose
// complete records all replay: every file starts with a zstd skippable
// frame that marks it as the recorder's (Marked), and cachebench's trace
// readers accept a torn last record, or a zstd stream that ends early,
// from such a file only, with a warning on stderr.
//
// Imports: only the standard library and github.com/klauspost/compress,
// so that a service importing the package pulls in almost nothing.
package cachetrace
