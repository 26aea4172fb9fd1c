// Package mmapstore is cachebench's own write-once key/value file store:
// a file built once from a stream of pairs, then memory-mapped read-only
// and queried with zero-copy lookups. Values are typed: bytes, string,
// int64, float64, bool, []int64, []float64 or []string, stored
// little-endian so that numbers and numeric vectors are read in place,
// without parsing.
//
// # Use
//
// Build a file, then open it:
//
//	b, err := mmapstore.Create("features.cache", mmapstore.BuildOptions{})
//	b.Add([]byte("greeting"), []byte("hello"))                   // bytes
//	b.AddValue([]byte("weights"), mmapstore.Float64sValue(vec))  // []float64
//	res, err := b.Finish() // fsync, rename over the destination
//
//	s, err := mmapstore.Open("features.cache")
//	defer s.Close()
//	v, ok := s.Get([]byte("greeting"))                  // []byte over the mapping
//	ws, found, err := s.GetFloat64s([]byte("weights"))  // []float64 over the mapping
//
// Build writes a sequence of byte pairs and BuildFrom drives a Builder
// from a Source (the records package reads TSV, CSV and JSON lines for
// `cachebench build`). Get, Lookup and the typed getters (GetInt64,
// GetFloat64, GetBool, GetString, GetInt64s, GetFloat64s, GetStrings)
// return slices of the mapping, read-only and valid until Close; the
// typed getters report a missing key as found == false and a value of
// another type as an error matching ErrType, and read scalars and
// numeric lists without allocating. GetBatch overlaps the cache misses
// of many lookups. GetChecked and LookupChecked check the block
// checksums of every byte they read; CheckSample checks a few buckets at
// a cost independent of the file size; Verify checks everything and
// Inspect gathers statistics. A Holder swaps a rebuilt file in under
// live readers. Map is the read-only file mapping shared with the
// file-store adapters.
//
// # Replace store files by rename, never in place
//
// A published store file is never modified: a new version is written to
// a temp file and renamed over the path (Build, Finish and `cachebench
// build` do), and readers of the old file keep its old inode and
// contents. Rewriting the file in place (cp over it, truncate, a write
// into it) while a Store or Holder has it mapped changes the bytes under
// live readers, and a read past the end of a shrunken file faults
// (SIGBUS) and kills the process: no mmap reader can prevent that.
// What can be checked is: Store.CheckFile compares the mapped file's
// size and modification time (fstat of the descriptor Open keeps) with
// the mapping, Holder.Check and CheckEvery stop serving a rewritten file
// (lookups return ErrRewritten until a Reload), and Verify and Inspect
// check first and turn a fault during their pass into ErrRewritten.
//
// # Design
//
// The format (FORMAT.md) is a 128-byte checksummed header, a records
// section, an index of 128-byte buckets and a table of one checksum per
// 256-byte block. A bucket, an aligned pair of cache lines, holds up to
// eight entries: a small record inline (by default up to 40 bytes of key
// and value), a larger one as a 15-bit tag and the 48-bit offset of its
// record. A lookup takes the home bucket from the high half of hash ×
// buckets, compares the key's 8-bit tag with the bucket's eight in one
// 64-bit word and compares the whole key of each match, going on to the
// next bucket only while an overflow bit says keys passing it live
// further on. The builder knows every key and packs them in home-bucket
// order, so nearly every key sits in its home bucket and a hit on a small
// record costs one bucket load: one dependent cache miss, which is what
// a lookup in a file bigger than the CPU caches is made of. Comparing
// the tags at once rather than walking the entries keeps the lookup free
// of a data-dependent branch whose misprediction would stop the next
// lookups from starting early.
//
// Typed values are little-endian and fixed-width, numeric lists 8-aligned
// in the file and never inline, so on a little-endian host a []float64
// comes back as a slice over the mapping (decoded into a new slice
// elsewhere). An untyped value has no type byte: a store of bytes costs
// what it did before types existed. Every reader checks a type byte
// against the size of its value, so a corrupt type or length makes a
// lookup miss rather than return bytes reinterpreted.
//
// Open validates the header against the file's real size before touching
// any mapped byte and reads nothing else, so opening costs the same on
// any file. The block checksums are keyed by the header, so a header
// edited and re-checksummed fails every block. The builder writes an
// unnamed (Linux) or temporary file and renames it into place, so a
// destination holds either its old or its new complete contents. The
// package reads one format version: store files are build artefacts,
// regenerated from their source data, so a file of another version is
// refused with ErrVersion and a message saying to rebuild it.
//
// DESIGN.md keeps the measurements and the experiments behind these
// choices; results/ holds published runs.
package mmapstore
