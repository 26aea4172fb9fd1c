// Package mmapstore is cachebench's own write-once key/value file store:
// a file built once from a stream of pairs, then memory-mapped read-only
// and queried with zero-copy lookups.
//
// The format (FORMAT.md) is a 128-byte checksummed header, the records
// (length-prefixed key and value, values optionally deduplicated) and an
// open-addressing index of 8-byte slots, each holding a 16-bit hash tag
// and a 48-bit record offset, then (version 2) a table of one checksum
// per 256-byte block of records and index. A lookup hashes the key, masks
// the hash to a power-of-two slot count, probes linearly for at most the file's recorded
// maximum probe length and compares the whole key in the record, so a hit
// costs one slot load and one record load, and most misses one slot load.
//
// Open validates the header against the file's real size before touching
// any mapped byte and reads nothing else; GetChecked is Get that checks
// the blocks it reads; CheckSample checks a few slots at a cost
// independent of the file size; Verify checks every checksum, record and
// slot; Inspect gathers statistics. A Builder writes to an unnamed (Linux)
// or temporary file and renames it into place; BuildFrom drives one from
// a Source; a Holder swaps a rebuilt file in under live readers. Map is
// the read-only file mapping shared with the file-store adapters.
package mmapstore
