package mmapstore

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/cachebench/cachebench/internal/engine/prefetch"
)

// Version 3 index: buckets of 128 bytes (two cache lines, aligned).
//
//	bytes 0..7      tags: entry i's 8-bit hash tag (never 0) at byte i,
//	                0 for an unused entry
//	bytes 8..15     entry i's start in the bucket at byte 8+i, 0 if unused
//	bytes 16..126   the entries, packed in order from byte 16, then zeros
//	byte 127        bit 7: overflow (a key whose probe passes this bucket
//	                lives further on); bits 0..3: entry count (≤ 8);
//	                bits 4..6: zero
//
// A lookup compares its tag with all eight at once (one 64-bit word),
// so a hit reads one entry and a miss usually none, with no walk over
// the entries whose length varies (a walk's exit point is what the CPU
// mispredicts). An entry whose first byte c is below 0x80 is a record
// stored inline: c = key length, then one byte of value length, the key
// and the value. An entry whose first byte is 0x80 or above points to a
// record in the records section: 15 more bits of the hash
// ((c & 0x7f) << 8 | next byte), then the record's offset in 6
// little-endian bytes.
const (
	bucketSize = 128
	// bucketTags is the number of entries a bucket can hold.
	bucketTags = 8
	// bucketData is where the entries start; bucketFlags is the byte
	// holding the overflow bit and the count, read at the start of every
	// probe so that the CPU requests the bucket's second line at once.
	bucketData       = 16
	bucketFlags      = bucketSize - 1
	bucketOverflow   = 0x80
	bucketCountMask  = 0x0f
	maxBucketEntries = bucketTags
	// bucketRoom is the room for entries.
	bucketRoom = bucketFlags - bucketData
	// outEntrySize is the size of an entry pointing to a record.
	outEntrySize = 8
	// outTagMask keeps 15 bits of the hash in an out-of-line entry: with
	// the 8-bit tag, a key that is not the record's costs a record load
	// once in 2^23 comparisons.
	outTagMask = 0x7fff
	// DefaultInlineMax is the largest inline entry (2 + key + value
	// bytes) the builder writes by default: records up to it cost one
	// bucket load per hit; larger ones would crowd the others out of
	// their home bucket, and go to the records section.
	DefaultInlineMax = 40
	// DefaultBucketFill is the share of the buckets' entry bytes the
	// builder fills by default (see doc.go for the measurements behind
	// it).
	DefaultBucketFill = 0.65
	lsb8              = 0x0101010101010101
	msb8              = 0x8080808080808080
)

// validateBuckets checks the index fields of a version-3 file: Slots is
// the number of home buckets, and the index holds MaxProbe−1 more
// buckets after them so that no probe wraps around.
func (h *Header) validateBuckets() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
	limit := h.FileSize / bucketSize
	if h.Slots < 1 || h.Slots > limit {
		return bad("bucket count %d is not between 1 and what a %d-byte file holds", h.Slots, h.FileSize)
	}
	if h.MaxProbe > limit || (h.Entries > 0) != (h.MaxProbe > 0) {
		return bad("max probe length %d is inconsistent with %d entries in %d buckets", h.MaxProbe, h.Entries, h.Slots)
	}
	// Both terms are at most FileSize/64 < 2^42: no overflow.
	total := h.totalBuckets()
	if h.IndexLength != total*bucketSize {
		return bad("index length %d, want (buckets + max probe − 1) × %d = %d", h.IndexLength, bucketSize, total*bucketSize)
	}
	if h.Entries > total*maxBucketEntries {
		return bad("%d entries cannot fit in %d buckets", h.Entries, total)
	}
	return nil
}

// totalBuckets is the number of buckets in a version-3 index: the home
// buckets and the tail that the longest probe can reach past the last.
func (h *Header) totalBuckets() uint64 { return h.Slots + max(h.MaxProbe, 1) - 1 }

// homeBucket maps a hash to one of n buckets by the high half of h × n,
// which needs no power-of-two count (and no division).
func homeBucket(h, n uint64) uint64 {
	hi, _ := bits.Mul64(h, n)
	return hi
}

// bucketTag is the 8-bit tag of hash h in the tag array (never 0).
func bucketTag(h uint64) byte {
	t := byte(h)
	if t == 0 {
		t = 1
	}
	return t
}

// outTag is the tag an out-of-line entry stores for hash h.
func outTag(h uint64) uint16 { return uint16(h>>8) & outTagMask }

// inlineSize is the size of an inline entry, or 0 if the pair cannot be
// stored inline at all.
func inlineSize(keyLen, valLen int) int {
	if keyLen >= 0x80 || valLen > 0xff || 2+keyLen+valLen > bucketRoom {
		return 0
	}
	return 2 + keyLen + valLen
}

// bucket returns bucket b of a version-3 index; b must be below
// totalBuckets.
func (s *Store) bucket(b uint64) *[bucketSize]byte {
	return (*[bucketSize]byte)(s.index[b*bucketSize:])
}

// tagMatches returns a bit mask with bit 8i+7 set where tag byte i may
// equal t: the classic test for a zero byte in tags XOR t×0x01…01. It
// can flag a byte above a true match too; the caller compares keys.
func tagMatches(tags uint64, t byte) uint64 {
	x := tags ^ uint64(t)*lsb8
	return (x - lsb8) &^ x & msb8
}

// find3 is the version-3 lookup: it scans the home bucket and, while a
// bucket's overflow bit says that keys passing it live further on, the
// following ones, at most maxProbe buckets. It returns the value, the
// bucket and the entry's number in it. Every position and length read
// from a bucket is checked against the bucket's bounds, so a corrupt
// bucket makes a lookup miss but never read outside it; the whole key is
// compared.
func (s *Store) find3(key []byte, h uint64) (val []byte, b uint64, slot int, ok bool) {
	b = homeBucket(h, s.buckets)
	t := bucketTag(h)
	kl := len(key)
	for n := s.maxProbe; n > 0; n, b = n-1, b+1 {
		bk := s.bucket(b)
		fl := bk[bucketFlags]
		for m := tagMatches(binary.LittleEndian.Uint64(bk[:8]), t); m != 0; m &= m - 1 {
			i := bits.TrailingZeros64(m) >> 3
			p := int(bk[8+i])
			if p < bucketData || p > bucketFlags-2 {
				continue
			}
			e := int(bk[p])
			if e < 0x80 {
				end := p + 2 + e + int(bk[p+1])
				if e == kl && end <= bucketFlags && string(bk[p+2:p+2+e]) == string(key) {
					return bk[p+2+e : end : end], b, i, true
				}
				continue
			}
			if p > bucketFlags-outEntrySize || uint16(e&0x7f)<<8|uint16(bk[p+1]) != outTag(h) {
				continue
			}
			off := uint64(binary.LittleEndian.Uint16(bk[p+2:])) | uint64(binary.LittleEndian.Uint32(bk[p+4:]))<<16
			if v, ok := s.match(key, off); ok {
				return v, b, i, true
			}
		}
		if fl&bucketOverflow == 0 {
			break
		}
	}
	return nil, 0, 0, false
}

// getBatch3's pipeline: keys are hashed and both lines of their home
// buckets prefetched in groups of batchGroup, batchAhead groups ahead of
// the key being resolved, so that a bucket has been requested about
// batchAhead × batchGroup keys' worth of work (~0.5 µs) before it is
// read. batchRing holds the hash and bucket of every key in flight.
const (
	batchGroup = 4
	batchAhead = 3
	batchRing  = 16 // a power of two ≥ (batchAhead + 1) × batchGroup
)

// batchKey is a key between its prefetch and its resolution.
type batchKey struct {
	h, b uint64 // the hash and the home bucket
	bk   *[bucketSize]byte
}

// getBatch3 is GetBatch for version 3, software-pipelined: while one
// key is resolved, both cache lines of the home buckets of the keys
// batchAhead groups further on have been requested, so their misses
// overlap with each other and with useful work, and a key in its home
// bucket costs no miss when it is resolved. Resolution takes a fast
// path, written into the loop, for a key of 8 to 16 bytes: a home bucket
// with no tag candidate and no overflow bit is a miss; one with no
// candidate and the bit set sends it to the next bucket; there, one tag
// candidate that is an inline entry whose two key words equal the key's
// is a hit. Anything else (several candidates, a record out of line, a
// mismatch, a longer or shorter key) goes through find3, and the fast
// path answers only where find3 would answer the same, so the results
// are find3's (TestGetBatchAgreesWithGet, the corruption sweep and
// FuzzBucket check it).
func (s *Store) getBatch3(keys [][]byte, fn func(i int, val []byte, found bool)) {
	if s.maxProbe == 0 {
		for i := range keys {
			fn(i, nil, false)
		}
		return
	}
	var ring [batchRing]batchKey
	var addrs [2 * batchGroup]uintptr
	nb, seed, cb1 := s.buckets, s.seed, s.hashID == HashCB1
	start := func(lo int) {
		hi := min(lo+batchGroup, len(keys))
		if lo >= hi {
			return
		}
		for i, k := range keys[lo:hi] {
			var h uint64
			if n := len(k); cb1 && n >= 8 && n <= 16 {
				h = hashWords(binary.LittleEndian.Uint64(k), binary.LittleEndian.Uint64(k[n-8:]), n, seed)
			} else {
				h = s.hash(k)
			}
			b := homeBucket(h, nb)
			bk := s.bucket(b)
			ring[(lo+i)&(batchRing-1)] = batchKey{h, b, bk}
			addrs[2*i] = uintptr(unsafe.Pointer(&bk[0]))
			addrs[2*i+1] = uintptr(unsafe.Pointer(&bk[bucketFlags]))
		}
		prefetch.Lines(&addrs[0], 2*(hi-lo))
	}
	for g := range batchAhead {
		start(g * batchGroup)
	}
	for i, k := range keys {
		if i&(batchGroup-1) == 0 {
			start(i + batchAhead*batchGroup)
		}
		e := ring[i&(batchRing-1)]
		if kl := len(k); kl >= 8 && kl <= 16 {
			bk, t := e.bk, bucketTag(e.h)
			m := tagMatches(binary.LittleEndian.Uint64(bk[:8]), t)
			if m == 0 {
				if bk[bucketFlags]&bucketOverflow == 0 {
					fn(i, nil, false) // find3's answer: not in the only bucket it may be in
					continue
				}
				if s.maxProbe > 1 { // else find3 looks no further
					// The key lives further on, nearly always in the
					// next bucket: look there the same way.
					bk = s.bucket(e.b + 1)
					m = tagMatches(binary.LittleEndian.Uint64(bk[:8]), t)
				}
			}
			if m != 0 && m&(m-1) == 0 {
				// The only candidate of the bucket (tagMatches flags
				// every true match, and the buckets before it had
				// none): an inline entry of the key's length whose two
				// key words equal the key's is the key.
				p := int(bk[8+bits.TrailingZeros64(m)>>3])
				if p >= bucketData && p+2+kl <= bucketFlags && int(bk[p]) == kl {
					if end := p + 2 + kl + int(bk[p+1]); end <= bucketFlags &&
						binary.LittleEndian.Uint64(bk[p+2:]) == binary.LittleEndian.Uint64(k) &&
						binary.LittleEndian.Uint64(bk[p+kl-6:]) == binary.LittleEndian.Uint64(k[kl-8:]) {
						fn(i, bk[p+2+kl:end:end], true)
						continue
					}
				}
			}
		}
		v, _, _, ok := s.find3(k, e.h)
		fn(i, v, ok)
	}
}

// bucketEntry is one decoded entry of a version-3 bucket.
type bucketEntry struct {
	slot     int    // its number in the bucket
	pos, end int    // its bytes in the bucket
	tag      byte   // its tag byte
	inline   bool   //
	key, val []byte // inline entries: slices of the bucket
	outTag   uint16 // out-of-line entries: the stored 15-bit tag ...
	off      uint64 // ... and the record's offset
}

// parseBucket decodes every entry of bk, calling fn for each until it
// returns false, and checks the bucket's structure (FORMAT.md): reserved
// flag bits zero, a count of at most 8, a non-zero tag and a start for
// each entry and zeros for the unused ones, entries packed from byte 16
// in order without gaps, zeros after the last. It does not look at
// records.
func parseBucket(bk *[bucketSize]byte, fn func(e bucketEntry) bool) error {
	fl := bk[bucketFlags]
	count := int(fl & bucketCountMask)
	if fl&^(bucketOverflow|bucketCountMask) != 0 || count > bucketTags {
		return fmt.Errorf("%w: bucket flags %#02x: reserved bits set or count above %d", ErrCorrupt, fl, bucketTags)
	}
	p := bucketData
	for i := range bucketTags {
		if i >= count {
			if bk[i] != 0 || bk[8+i] != 0 {
				return fmt.Errorf("%w: unused bucket entry %d has tag %#02x, start %d", ErrCorrupt, i, bk[i], bk[8+i])
			}
			continue
		}
		if bk[i] == 0 || int(bk[8+i]) != p || p > bucketFlags-2 {
			return fmt.Errorf("%w: bucket entry %d has tag %#02x and start %d, want a non-zero tag and start %d", ErrCorrupt, i, bk[i], bk[8+i], p)
		}
		e := bucketEntry{slot: i, pos: p, tag: bk[i]}
		if c := int(bk[p]); c < 0x80 {
			e.inline = true
			e.end = p + 2 + c + int(bk[p+1])
			if e.end > bucketFlags {
				return fmt.Errorf("%w: inline entry %d at byte %d runs past the bucket", ErrCorrupt, i, p)
			}
			e.key = bk[p+2 : p+2+c : p+2+c]
			e.val = bk[p+2+c : e.end : e.end]
		} else {
			e.end = p + outEntrySize
			if e.end > bucketFlags {
				return fmt.Errorf("%w: record entry %d at byte %d runs past the bucket", ErrCorrupt, i, p)
			}
			e.outTag = uint16(c&0x7f)<<8 | uint16(bk[p+1])
			e.off = uint64(binary.LittleEndian.Uint16(bk[p+2:])) | uint64(binary.LittleEndian.Uint32(bk[p+4:]))<<16
		}
		p = e.end
		if fn != nil && !fn(e) {
			return nil
		}
	}
	for q := p; q < bucketFlags; q++ {
		if bk[q] != 0 {
			return fmt.Errorf("%w: non-zero byte %d after the last entry of a bucket", ErrCorrupt, q)
		}
	}
	return nil
}

// appendInline appends an inline entry.
func appendInline(dst, key, val []byte) []byte {
	dst = append(dst, byte(len(key)), byte(len(val)))
	dst = append(dst, key...)
	return append(dst, val...)
}

// appendOutOfLine appends an entry pointing to the record at off.
func appendOutOfLine(dst []byte, h, off uint64) []byte {
	t := outTag(h)
	dst = append(dst, 0x80|byte(t>>8), byte(t))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(off))
	return binary.LittleEndian.AppendUint32(dst, uint32(off>>16))
}
