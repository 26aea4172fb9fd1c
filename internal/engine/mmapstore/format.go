package mmapstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Errors returned (wrapped, with the path) by Open, Verify and the builder.
// Test with errors.Is.
var (
	// ErrNotCachebench means the file does not start with our magic: it is
	// empty, of another format (CDB, LMDB, text) or random bytes.
	ErrNotCachebench = errors.New("not a cachebench file")
	// ErrVersion means the file is ours but of a format version this code
	// does not read.
	ErrVersion = errors.New("unsupported cachebench file version")
	// ErrCorrupt means a header field, a slot or a record is inconsistent
	// with the file (truncated file, offsets out of range, bad lengths).
	ErrCorrupt = errors.New("corrupt cachebench file")
	// ErrChecksum means a stored checksum does not match the bytes it covers.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrClosed is returned for operations on a closed Store or Holder.
	ErrClosed = errors.New("store is closed")
	// ErrDuplicateKey is matched by *DuplicateKeyError.
	ErrDuplicateKey = errors.New("duplicate key")
	// ErrProbeLimit means the keys collide so much that some key would sit
	// further than BuildOptions.MaxProbe slots from its home slot.
	ErrProbeLimit = errors.New("probe length limit exceeded")
	// ErrTooLarge means the file would exceed the format's 2^48-byte limit.
	ErrTooLarge = errors.New("store too large for the format")
)

// magic starts every file. Like PNG's signature it has a high-bit byte and
// CR LF / LF bytes, so a text-mode transfer that mangles the file is caught
// by the magic check rather than later.
var magic = [8]byte{0x89, 'C', 'B', 'M', '\r', '\n', 0x1a, '\n'}

const (
	// Version is the format version this package writes: the index is
	// made of 64-byte buckets holding small records inline (see
	// bucket.go). It reads Version2 and Version1 files too.
	Version = 3
	// Version2 files have an index of 8-byte slots (hash tag and record
	// offset) and every record in the records section, so a hit costs
	// two dependent cache misses.
	Version2 = 2
	// Version1 files have one checksum per section instead of one per
	// block, so a lookup in them can be checked only by reading the whole
	// file (Store.GetChecked does that once).
	Version1 = 1
	// DefaultBlockShift makes checksummed blocks 256 bytes: a checked
	// lookup hashes one index block and usually one record block, and the
	// block table costs 4 bytes per 256 (0.56 B per key for the 1M key_%d
	// set). 512-byte blocks cost half that on disk but made checked
	// lookups about a quarter slower (BenchmarkGetChecked).
	DefaultBlockShift = 8
	// minBlockShift and maxBlockShift bound the block size to 64 B–64 KiB.
	minBlockShift, maxBlockShift = 6, 16
	// blockSumSize is the size of one block table entry.
	blockSumSize = 4
	// HeaderSize is the size of the fixed header at offset 0.
	HeaderSize = 128
	// slotSize is the size of one index slot (tag<<48 | record offset).
	slotSize = 8
	// offsetBits is the number of slot bits holding a record offset;
	// the 16 bits above hold the hash tag.
	offsetBits = 48
	offsetMask = 1<<offsetBits - 1
	// MaxFileSize is the largest file the format can address: record
	// offsets are 48 bits (256 TiB).
	MaxFileSize = 1 << offsetBits
	// indexAlign aligns the index to a cache line so a run of 8 slots
	// never straddles two lines.
	indexAlign = 64
	// minSlots is the smallest index, so an empty store still has one.
	minSlots = 8
)

// Header flags.
const (
	// FlagDedup says records may reference a value stored earlier in the
	// file instead of holding it inline.
	FlagDedup  uint64 = 1 << 0
	knownFlags        = FlagDedup
)

// Hash function identifiers stored in the header.
const (
	// HashCB1 is cachebench's hash, version 1 (see FORMAT.md). Keys of up
	// to 16 bytes are read as two overlapping little-endian words and
	// mixed with two folded 64×64→128-bit multiplications with the seed;
	// longer keys go through xxh64 (cespare/xxhash, seed 0), whose result
	// is mixed with the seed the same way. The short path takes a handful
	// of instructions: in a lookup whose key is not in cache every
	// instruction that waits for it occupies the CPU's scheduler, and
	// fewer of them let the next lookups start sooner.
	//
	// The seed moves keys between slots from one build to the next; it
	// does not make the hash a keyed PRF, so keys crafted against a known
	// seed can still collide (the builder's probe limit turns that into
	// an error).
	HashCB1 uint16 = 1
	// hashTestConst and hashTestLow are only accepted in tests (see
	// testHashes): they make every key collide, to test bounded probing.
	hashTestConst uint16 = 0xfff0
	hashTestLow   uint16 = 0xfff1
	hashTestHome0 uint16 = 0xfff2
)

// testHashes holds hash functions only tests register; production files
// carrying such an id are rejected as corrupt.
var testHashes map[uint16]func(key []byte, seed uint64) uint64

// Odd constants of the mixer (the 64-bit golden ratio and splitmix64's).
const (
	mixK1 = 0x9e3779b97f4a7c15
	mixK2 = 0xbf58476d1ce4e5b9
	mixK3 = 0x94d049bb133111eb
)

// mix folds the 128-bit product of a and b into 64 bits.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hashKey is HashCB1.
func hashKey(key []byte, seed uint64) uint64 {
	n := len(key)
	var a, b uint64
	switch {
	case n > 16:
		a, b = xxhash.Sum64(key), 0
	case n >= 8:
		a = binary.LittleEndian.Uint64(key)
		b = binary.LittleEndian.Uint64(key[n-8:])
	case n >= 4:
		a = uint64(binary.LittleEndian.Uint32(key))
		b = uint64(binary.LittleEndian.Uint32(key[n-4:]))
	case n > 0:
		a = uint64(key[0])<<16 | uint64(key[n>>1])<<8 | uint64(key[n-1])
	}
	return hashWords(a, b, n, seed)
}

// hashWords is HashCB1's mixing of the words a and b read from an n-byte
// key; small enough to inline where a loop reads the words itself
// (getBatch3, for keys of 8 to 16 bytes).
func hashWords(a, b uint64, n int, seed uint64) uint64 {
	h := mix(a^seed^mixK1, b^uint64(n)^mixK2)
	return mix(h^mixK3, seed^mixK1)
}

// Header is the decoded fixed header. Offsets are from the start of the
// file; every field is little-endian on disk (see FORMAT.md).
type Header struct {
	Version         uint16 `json:"version"`
	HashID          uint16 `json:"hash_id"`
	BlockShift      uint16 `json:"block_shift,omitempty"` // version 2: log2 of the checksummed block size
	Flags           uint64 `json:"flags"`
	Seed            uint64 `json:"seed"`
	Entries         uint64 `json:"entries"`                        // keys reachable from the index
	Records         uint64 `json:"records"`                        // records in the records section (≥ Entries: duplicates under last-wins stay as dead records)
	Slots           uint64 `json:"slots"`                          // index slots, a power of two
	MaxProbe        uint64 `json:"max_probe"`                      // longest probe sequence of any key, in slots
	RecordsOffset   uint64 `json:"records_offset"`                 //
	RecordsLength   uint64 `json:"records_length"`                 //
	IndexOffset     uint64 `json:"index_offset"`                   //
	IndexLength     uint64 `json:"index_length"`                   // Slots × 8
	FileSize        uint64 `json:"file_size"`                      // must equal the real size
	RecordsChecksum uint64 `json:"records_checksum,omitempty"`     // version 1: xxh64 of the records section
	IndexChecksum   uint64 `json:"index_checksum,omitempty"`       // version 1: xxh64 of the index section
	BlockTableSum   uint64 `json:"block_table_checksum,omitempty"` // version 2: xxh64 of the block table
	BlockTableOff   uint64 `json:"block_table_offset,omitempty"`   // version 2: = index offset + index length
	HeaderChecksum  uint64 `json:"header_checksum"`                // xxh64 of header bytes 0..119
}

// blockSize is the checksummed block size (version 2), 0 for version 1.
func (h *Header) blockSize() uint64 {
	if h.Version < 2 {
		return 0
	}
	return 1 << h.BlockShift
}

// blockCounts returns how many blocks the records and the index sections
// have (version 2): each section is cut into blocks from its own start,
// the last one possibly short.
func (h *Header) blockCounts() (rec, idx uint64) {
	bs := h.blockSize()
	if bs == 0 {
		return 0, 0
	}
	return (h.RecordsLength + bs - 1) / bs, (h.IndexLength + bs - 1) / bs
}

// encode writes h into b (len ≥ HeaderSize) and fills HeaderChecksum.
func (h *Header) encode(b []byte) {
	b = b[:HeaderSize]
	clear(b)
	copy(b[0:8], magic[:])
	le := binary.LittleEndian
	le.PutUint16(b[8:], h.Version)
	le.PutUint16(b[10:], HeaderSize)
	le.PutUint16(b[12:], h.HashID)
	le.PutUint16(b[14:], h.BlockShift) // reserved, zero, in version 1
	le.PutUint64(b[16:], h.Flags)
	le.PutUint64(b[24:], h.Seed)
	le.PutUint64(b[32:], h.Entries)
	le.PutUint64(b[40:], h.Records)
	le.PutUint64(b[48:], h.Slots)
	le.PutUint64(b[56:], h.MaxProbe)
	le.PutUint64(b[64:], h.RecordsOffset)
	le.PutUint64(b[72:], h.RecordsLength)
	le.PutUint64(b[80:], h.IndexOffset)
	le.PutUint64(b[88:], h.IndexLength)
	le.PutUint64(b[96:], h.FileSize)
	if h.Version == Version1 {
		le.PutUint64(b[104:], h.RecordsChecksum)
		le.PutUint64(b[112:], h.IndexChecksum)
	} else {
		le.PutUint64(b[104:], h.BlockTableSum)
		le.PutUint64(b[112:], h.BlockTableOff)
	}
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
	if h.Version != Version && h.Version != Version2 && h.Version != Version1 {
		return h, fmt.Errorf("%w: version %d (this build reads versions %d to %d)", ErrVersion, h.Version, Version1, Version)
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
	if h.Version == Version1 && h.BlockShift != 0 {
		return h, fmt.Errorf("%w: reserved header bytes are %#x, want 0", ErrCorrupt, h.BlockShift)
	}
	if h.Version != Version1 && (h.BlockShift < minBlockShift || h.BlockShift > maxBlockShift) {
		return h, fmt.Errorf("%w: block shift %d outside [%d, %d]", ErrCorrupt, h.BlockShift, minBlockShift, maxBlockShift)
	}
	h.Flags = le.Uint64(b[16:])
	h.Seed = le.Uint64(b[24:])
	h.Entries = le.Uint64(b[32:])
	h.Records = le.Uint64(b[40:])
	h.Slots = le.Uint64(b[48:])
	h.MaxProbe = le.Uint64(b[56:])
	h.RecordsOffset = le.Uint64(b[64:])
	h.RecordsLength = le.Uint64(b[72:])
	h.IndexOffset = le.Uint64(b[80:])
	h.IndexLength = le.Uint64(b[88:])
	h.FileSize = le.Uint64(b[96:])
	if h.Version == Version1 {
		h.RecordsChecksum = le.Uint64(b[104:])
		h.IndexChecksum = le.Uint64(b[112:])
	} else {
		h.BlockTableSum = le.Uint64(b[104:])
		h.BlockTableOff = le.Uint64(b[112:])
	}
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
	if h.Version == Version {
		if err := h.validateBuckets(); err != nil {
			return err
		}
	} else if err := h.validateSlots(); err != nil {
		return err
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
	align := h.indexAlign()
	if h.IndexOffset%align != 0 || h.IndexOffset < recEnd || h.IndexOffset-recEnd >= align {
		return bad("index offset %d is not the first %d-aligned offset after the records (which end at %d)", h.IndexOffset, align, recEnd)
	}
	idxEnd, ok := addNoOverflow(h.IndexOffset, h.IndexLength)
	if h.Version == Version1 {
		if !ok || idxEnd != h.FileSize {
			return bad("index section [%d, +%d) does not end at the end of the %d-byte file", h.IndexOffset, h.IndexLength, h.FileSize)
		}
		return nil
	}
	// Version 2: the block table follows the index and ends the file.
	// Both counts are at most FileSize/64, so the sum cannot wrap.
	nr, ni := h.blockCounts()
	if !ok || h.BlockTableOff != idxEnd || idxEnd > h.FileSize || h.FileSize-idxEnd != (nr+ni)*blockSumSize {
		return bad("block table at %d (index ends at %d) of %d blocks does not end at the end of the %d-byte file", h.BlockTableOff, idxEnd, nr+ni, h.FileSize)
	}
	return nil
}

// validateSlots checks the index fields of a version-1 or -2 file.
func (h *Header) validateSlots() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
	if h.Slots < minSlots || h.Slots&(h.Slots-1) != 0 {
		return bad("slot count %d is not a power of two ≥ %d", h.Slots, minSlots)
	}
	if h.Slots > h.FileSize/slotSize {
		return bad("slot count %d cannot fit in a %d-byte file", h.Slots, h.FileSize)
	}
	if h.IndexLength != h.Slots*slotSize { // no overflow: Slots ≤ FileSize/8
		return bad("index length %d, want slots × %d = %d", h.IndexLength, slotSize, h.Slots*slotSize)
	}
	if h.Entries > h.Slots {
		return bad("%d entries cannot fit in %d slots", h.Entries, h.Slots)
	}
	if h.Entries > h.Records {
		return bad("%d entries but only %d records", h.Entries, h.Records)
	}
	if h.MaxProbe > h.Slots || (h.Entries > 0) != (h.MaxProbe > 0) {
		return bad("max probe length %d is inconsistent with %d entries in %d slots", h.MaxProbe, h.Entries, h.Slots)
	}
	return nil
}

// indexAlign is the alignment of the index: a cache line for slots, a
// bucket (a pair of lines, which Intel cores fetch together) for
// buckets.
func (h *Header) indexAlign() uint64 {
	if h.Version == Version {
		return bucketSize
	}
	return indexAlign
}

// addNoOverflow returns a+b and whether it did not wrap.
func addNoOverflow(a, b uint64) (uint64, bool) {
	s, carry := bits.Add64(a, b, 0)
	return s, carry == 0
}

// alignUp rounds n up to a multiple of a (a power of two).
func alignUp(n, a uint64) uint64 { return (n + a - 1) &^ (a - 1) }

// slotsFor returns the power-of-two slot count that keeps n entries at or
// below maxLoad.
func slotsFor(n uint64, maxLoad float64) uint64 {
	need := uint64(math.Ceil(float64(n) / maxLoad))
	if need < minSlots {
		need = minSlots
	}
	if need > 1<<62 {
		return 1 << 62
	}
	return 1 << bits.Len64(need-1)
}

// Record layout (see FORMAT.md):
//
//	uvarint keyLen
//	uvarint valWord            valLen<<1 | isRef
//	[uvarint valOffset]        only when isRef: absolute offset of the value bytes
//	key bytes
//	[value bytes]              only when !isRef
//
// appendRecordHeader appends the varints for a record.
func appendRecordHeader(dst []byte, keyLen, valLen int, ref bool, valOff uint64) []byte {
	dst = binary.AppendUvarint(dst, uint64(keyLen))
	w := uint64(valLen) << 1
	if ref {
		w |= 1
	}
	dst = binary.AppendUvarint(dst, w)
	if ref {
		dst = binary.AppendUvarint(dst, valOff)
	}
	return dst
}

// record is one decoded record; offsets are absolute file offsets.
type record struct {
	keyOff, keyLen uint64
	valOff, valLen uint64
	ref            bool
	end            uint64 // offset just past the record
}

// decodeRecord decodes the record starting at off in recs (recs[i] is the
// file byte at offset i; len(recs) is the end of the records section).
// Every length is checked against the section, so a corrupt record yields
// ok == false and never an out-of-range slice.
func decodeRecord(recs []byte, off uint64, dedup bool) (r record, ok bool) {
	if off >= uint64(len(recs)) {
		return r, false
	}
	b := recs[off:]
	kl, n := binary.Uvarint(b)
	if n <= 0 {
		return r, false
	}
	p := uint64(n)
	w, n := binary.Uvarint(b[p:])
	if n <= 0 {
		return r, false
	}
	p += uint64(n)
	r.valLen = w >> 1
	r.ref = w&1 != 0
	rest := uint64(len(b)) - p
	if r.ref {
		if !dedup {
			return r, false
		}
		vo, n := binary.Uvarint(b[p:])
		if n <= 0 {
			return r, false
		}
		p += uint64(n)
		rest = uint64(len(b)) - p
		// A referenced value lies wholly before this record, so following
		// references can never loop.
		if vo < HeaderSize || vo > off || r.valLen > off-vo {
			return r, false
		}
		r.valOff = vo
		if kl > rest {
			return r, false
		}
		r.keyOff = off + p
		r.keyLen = kl
		r.end = r.keyOff + kl
		return r, true
	}
	if kl > rest || r.valLen > rest-kl {
		return r, false
	}
	r.keyOff = off + p
	r.keyLen = kl
	r.valOff = r.keyOff + kl
	r.end = r.valOff + r.valLen
	return r, true
}
