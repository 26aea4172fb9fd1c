package mmapstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Errors returned (wrapped, with the path) by Open, Verify and the builder.
// Test with errors.Is.
var (
	// ErrNotCachebench means the file does not start with our magic: it is
	// empty, of another format (CDB, LMDB, text) or random bytes.
	ErrNotCachebench = errors.New("not a cachebench file")
	// ErrVersion means the file is ours but of another format version.
	// Files are build artefacts: rebuild it from its source data with
	// this version's `cachebench build`.
	ErrVersion = errors.New("unsupported cachebench file version")
	// ErrCorrupt means a header field, a bucket or a record is
	// inconsistent with the file (truncated file, offsets out of range,
	// bad lengths).
	ErrCorrupt = errors.New("corrupt cachebench file")
	// ErrChecksum means a stored checksum does not match the bytes it covers.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrClosed is returned for operations on a closed Store or Holder.
	ErrClosed = errors.New("store is closed")
	// ErrRewritten means the mapped file was truncated or rewritten in
	// place while open: a store file must be replaced by rename (as
	// build and Holder.Reload do), never written over, since a read of
	// the mapping past a shrunken file's end faults (SIGBUS).
	ErrRewritten = errors.New("store file rewritten in place while mapped (replace store files by rename, never write over them)")
	// ErrDuplicateKey is matched by *DuplicateKeyError.
	ErrDuplicateKey = errors.New("duplicate key")
	// ErrProbeLimit means the keys collide so much that some key would sit
	// further than BuildOptions.MaxProbe buckets from its home bucket.
	ErrProbeLimit = errors.New("probe length limit exceeded")
	// ErrTooLarge means the file would exceed the format's 2^48-byte limit.
	ErrTooLarge = errors.New("store too large for the format")
)

// magic starts every file. Like PNG's signature it has a high-bit byte and
// CR LF / LF bytes, so a text-mode transfer that mangles the file is caught
// by the magic check rather than later.
var magic = [8]byte{0x89, 'C', 'B', 'M', '\r', '\n', 0x1a, '\n'}

const (
	// Version is the one format version this package writes and reads
	// (FORMAT.md). Files of other versions are refused with ErrVersion:
	// they are regenerated from their source data, so one reader is
	// worth more than several.
	Version = 4
	// DefaultBlockShift makes checksummed blocks 256 bytes: a checked
	// lookup hashes one index block and usually one record block, and the
	// block table costs 4 bytes per 256 (0.6 B per key for the 1M key_%d
	// set). Why not 512: DESIGN.md.
	DefaultBlockShift = 8
	// minBlockShift and maxBlockShift bound the block size to 64 B–64 KiB.
	minBlockShift, maxBlockShift = 6, 16
	// blockSumSize is the size of one block table entry.
	blockSumSize = 4
	// HeaderSize is the size of the fixed header at offset 0.
	HeaderSize = 128
	// offsetBits is the width of a record offset in an out-of-line
	// bucket entry.
	offsetBits = 48
	// MaxFileSize is the largest file the format can address: record
	// offsets are 48 bits (256 TiB).
	MaxFileSize = 1 << offsetBits
)

// Header flags.
const (
	// FlagDedup says records may reference a value stored earlier in the
	// file instead of holding it inline.
	FlagDedup  uint64 = 1 << 0
	knownFlags        = FlagDedup
)

// Header is the decoded fixed header. Offsets are from the start of the
// file; every field is little-endian on disk (see FORMAT.md).
type Header struct {
	Version        uint16 `json:"version"`
	HashID         uint16 `json:"hash_id"`
	BlockShift     uint16 `json:"block_shift"` // log2 of the checksummed block size
	Flags          uint64 `json:"flags"`
	Seed           uint64 `json:"seed"`
	Entries        uint64 `json:"entries"`              // keys reachable from the index
	Records        uint64 `json:"records"`              // records in the records section (out-of-line keys and dead records)
	Buckets        uint64 `json:"buckets"`              // home buckets of the index
	MaxProbe       uint64 `json:"max_probe"`            // longest probe of any key, in buckets
	RecordsOffset  uint64 `json:"records_offset"`       //
	RecordsLength  uint64 `json:"records_length"`       //
	IndexOffset    uint64 `json:"index_offset"`         //
	IndexLength    uint64 `json:"index_length"`         // (Buckets + max(MaxProbe, 1) − 1) × 128
	FileSize       uint64 `json:"file_size"`            // must equal the real size
	BlockTableSum  uint64 `json:"block_table_checksum"` // xxh64 of the block table
	BlockTableOff  uint64 `json:"block_table_offset"`   // = index offset + index length
	HeaderChecksum uint64 `json:"header_checksum"`      // xxh64 of header bytes 0..119
}

// blockSize is the checksummed block size.
func (h *Header) blockSize() uint64 { return 1 << h.BlockShift }

// blockCounts returns how many blocks the records and the index sections
// have: each section is cut into blocks from its own start, the last one
// possibly short.
func (h *Header) blockCounts() (rec, idx uint64) {
	bs := h.blockSize()
	return (h.RecordsLength + bs - 1) / bs, (h.IndexLength + bs - 1) / bs
}

// totalBuckets is the number of buckets in the index: the home buckets
// and the tail that the longest probe can reach past the last.
func (h *Header) totalBuckets() uint64 { return h.Buckets + max(h.MaxProbe, 1) - 1 }

// encode writes h into b (len ≥ HeaderSize) and fills HeaderChecksum.
func (h *Header) encode(b []byte) {
	b = b[:HeaderSize]
	clear(b)
	copy(b[0:8], magic[:])
	le := binary.LittleEndian
	le.PutUint16(b[8:], h.Version)
	le.PutUint16(b[10:], HeaderSize)
	le.PutUint16(b[12:], h.HashID)
	le.PutUint16(b[14:], h.BlockShift)
	le.PutUint64(b[16:], h.Flags)
	le.PutUint64(b[24:], h.Seed)
	le.PutUint64(b[32:], h.Entries)
	le.PutUint64(b[40:], h.Records)
	le.PutUint64(b[48:], h.Buckets)
	le.PutUint64(b[56:], h.MaxProbe)
	le.PutUint64(b[64:], h.RecordsOffset)
	le.PutUint64(b[72:], h.RecordsLength)
	le.PutUint64(b[80:], h.IndexOffset)
	le.PutUint64(b[88:], h.IndexLength)
	le.PutUint64(b[96:], h.FileSize)
	le.PutUint64(b[104:], h.BlockTableSum)
	le.PutUint64(b[112:], h.BlockTableOff)
	h.HeaderChecksum = xxhash.Sum64(b[:120])
	le.PutUint64(b[120:], h.HeaderChecksum)
}

// parseHeader decodes and validates the header bytes b (possibly shorter
// than HeaderSize when the file is) against the real file size. It reads
// nothing but b, so it is safe to call before the file is mapped, and it
// returns ErrNotCachebench, ErrVersion, ErrChecksum or ErrCorrupt.
func parseHeader(b []byte, fileSize int64) (Header, error) {
	var h Header
	if len(b) < len(magic) || [8]byte(b[:8]) != magic {
		return h, ErrNotCachebench
	}
	if len(b) < 10 {
		return h, fmt.Errorf("%w: file of %d bytes is shorter than the header", ErrCorrupt, fileSize)
	}
	le := binary.LittleEndian
	h.Version = le.Uint16(b[8:])
	if h.Version != Version {
		return h, fmt.Errorf("%w: the file is format version %d, this cachebench reads only version %d: rebuild it from its source data with this version's `cachebench build`",
			ErrVersion, h.Version, Version)
	}
	if len(b) < HeaderSize || fileSize < HeaderSize {
		return h, fmt.Errorf("%w: file of %d bytes is shorter than the %d-byte header", ErrCorrupt, fileSize, HeaderSize)
	}
	h.HeaderChecksum = le.Uint64(b[120:])
	if sum := xxhash.Sum64(b[:120]); sum != h.HeaderChecksum {
		return h, fmt.Errorf("%w: header checksum is %#016x, stored %#016x", ErrChecksum, sum, h.HeaderChecksum)
	}
	if hs := le.Uint16(b[10:]); hs != HeaderSize {
		return h, fmt.Errorf("%w: header size %d, want %d", ErrCorrupt, hs, HeaderSize)
	}
	h.HashID = le.Uint16(b[12:])
	h.BlockShift = le.Uint16(b[14:])
	if h.BlockShift < minBlockShift || h.BlockShift > maxBlockShift {
		return h, fmt.Errorf("%w: block shift %d outside [%d, %d]", ErrCorrupt, h.BlockShift, minBlockShift, maxBlockShift)
	}
	h.Flags = le.Uint64(b[16:])
	h.Seed = le.Uint64(b[24:])
	h.Entries = le.Uint64(b[32:])
	h.Records = le.Uint64(b[40:])
	h.Buckets = le.Uint64(b[48:])
	h.MaxProbe = le.Uint64(b[56:])
	h.RecordsOffset = le.Uint64(b[64:])
	h.RecordsLength = le.Uint64(b[72:])
	h.IndexOffset = le.Uint64(b[80:])
	h.IndexLength = le.Uint64(b[88:])
	h.FileSize = le.Uint64(b[96:])
	h.BlockTableSum = le.Uint64(b[104:])
	h.BlockTableOff = le.Uint64(b[112:])
	if err := h.validate(fileSize); err != nil {
		return h, err
	}
	return h, nil
}

// validate checks every field against the others and the real file size,
// with overflow-safe arithmetic, so that nothing derived from the header
// can point outside the file.
func (h *Header) validate(fileSize int64) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
	if h.FileSize != uint64(fileSize) {
		return bad("header says %d bytes, file has %d (truncated or extended?)", h.FileSize, fileSize)
	}
	if h.FileSize > MaxFileSize {
		return bad("file size %d exceeds the format limit %d", h.FileSize, uint64(MaxFileSize))
	}
	if h.Flags&^knownFlags != 0 {
		return bad("unknown flags %#x", h.Flags&^knownFlags)
	}
	if h.HashID != HashCB1 {
		if _, ok := testHashes[h.HashID]; !ok {
			return bad("unknown hash function id %d", h.HashID)
		}
	}
	// The index: Buckets home buckets and MaxProbe−1 more after them, so
	// that no probe wraps around.
	limit := h.FileSize / bucketSize
	if h.Buckets < 1 || h.Buckets > limit {
		return bad("bucket count %d is not between 1 and what a %d-byte file holds", h.Buckets, h.FileSize)
	}
	if h.MaxProbe > limit || (h.Entries > 0) != (h.MaxProbe > 0) {
		return bad("max probe length %d is inconsistent with %d entries in %d buckets", h.MaxProbe, h.Entries, h.Buckets)
	}
	// Both terms are at most FileSize/128 < 2^41: no overflow.
	total := h.totalBuckets()
	if h.IndexLength != total*bucketSize {
		return bad("index length %d, want (buckets + max probe − 1) × %d = %d", h.IndexLength, bucketSize, total*bucketSize)
	}
	if h.Entries > total*bucketTags {
		return bad("%d entries cannot fit in %d buckets", h.Entries, total)
	}
	if h.RecordsOffset != HeaderSize {
		return bad("records offset %d, want %d", h.RecordsOffset, HeaderSize)
	}
	recEnd, ok := addNoOverflow(h.RecordsOffset, h.RecordsLength)
	if !ok || recEnd > h.FileSize {
		return bad("records section [%d, +%d) extends past the end of the %d-byte file", h.RecordsOffset, h.RecordsLength, h.FileSize)
	}
	// A record takes at least 2 bytes (two one-byte length varints).
	if h.Records > h.RecordsLength/2 {
		return bad("%d records cannot fit in %d bytes", h.Records, h.RecordsLength)
	}
	if h.IndexOffset%bucketSize != 0 || h.IndexOffset < recEnd || h.IndexOffset-recEnd >= bucketSize {
		return bad("index offset %d is not the first %d-aligned offset after the records (which end at %d)", h.IndexOffset, bucketSize, recEnd)
	}
	// The block table follows the index and ends the file. Both counts
	// are at most FileSize/64, so the sum cannot wrap.
	idxEnd, ok := addNoOverflow(h.IndexOffset, h.IndexLength)
	nr, ni := h.blockCounts()
	if !ok || h.BlockTableOff != idxEnd || idxEnd > h.FileSize || h.FileSize-idxEnd != (nr+ni)*blockSumSize {
		return bad("block table at %d (index ends at %d) of %d blocks does not end at the end of the %d-byte file", h.BlockTableOff, idxEnd, nr+ni, h.FileSize)
	}
	return nil
}

// addNoOverflow returns a+b and whether it did not wrap.
func addNoOverflow(a, b uint64) (uint64, bool) {
	s, carry := bits.Add64(a, b, 0)
	return s, carry == 0
}

// alignUp rounds n up to a multiple of a (a power of two).
func alignUp(n, a uint64) uint64 { return (n + a - 1) &^ (a - 1) }
