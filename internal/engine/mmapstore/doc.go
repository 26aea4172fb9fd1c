// Package mmapstore is cachebench's own write-once key/value file store:
// a file built once from a stream of pairs, then memory-mapped read-only
// and queried with zero-copy lookups.
//
// The format (FORMAT.md) is a 128-byte checksummed header, the records
// (length-prefixed key and value, values optionally deduplicated) and an
// open-addressing index of 8-byte slots, each holding a 16-bit hash tag
// and a 48-bit record offset. A lookup hashes the key, masks the hash to a
// power-of-two slot count, probes linearly for at most the file's recorded
// maximum probe length and compares the whole key in the record, so a hit
// costs one slot load and one record load, and most misses one slot load.
//
// Open validates the header against the file's real size before touching
// any mapped byte and reads nothing else; Verify checks the checksums and
// every record and slot; Inspect gathers statistics. A Builder writes to a
// temporary file and renames it into place; a Holder swaps a rebuilt file
// in under live readers.
package mmapstore
