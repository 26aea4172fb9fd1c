package mmapstore

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// The index: buckets of 128 bytes (two cache lines, aligned).
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
// stored inline: c = key length, then a byte w whose low 7 bits are the
// value length; if w's bit 7 is set, a type byte follows (a TypeBytes
// value has none); then the key and the value. An entry whose first byte
// is 0x80 or above points to a record in the records section: 15 more
// bits of the hash ((c & 0x7f) << 8 | next byte), then the record's
// offset in 6 little-endian bytes.
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
	// inlineTyped marks, in an inline entry's second byte, that a type
	// byte follows; inlineLenMask keeps the value length.
	inlineTyped   = 0x80
	inlineLenMask = 0x7f
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
	// builder fills by default: at 0.65 about nine keys in ten sit in
	// their home bucket and nearly all others in the next one.
	DefaultBucketFill = 0.65
	lsb8              = 0x0101010101010101
	msb8              = 0x8080808080808080
)

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
// Numeric lists are never inline: they must start at a multiple of 8 in
// the file to be read in place.
func inlineSize(keyLen, valLen int, t Type) int {
	n := 2 + keyLen + valLen
	if t != TypeBytes {
		n++
	}
	if keyLen >= 0x80 || valLen > inlineLenMask || n > bucketRoom || t.aligned() {
		return 0
	}
	return n
}

// inlineType checks the type byte t of an inline entry holding an
// n-byte value: a type that may be inline and whose size fits.
func inlineType(t Type, n int) bool {
	return t != TypeBytes && t < numTypes && !t.aligned() && t.fits(uint64(n))
}

// bucket returns bucket b of the index; b must be below
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

// bucketEntry is one decoded entry of a bucket.
type bucketEntry struct {
	slot     int    // its number in the bucket
	pos, end int    // its bytes in the bucket
	tag      byte   // its tag byte
	inline   bool   //
	key, val []byte // inline entries: slices of the bucket ...
	typ      Type   // ... and the value's type
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
			w, q := int(bk[p+1]), p+2
			if w&inlineTyped != 0 {
				w &= inlineLenMask
				e.typ = Type(bk[q])
				q++
				if !inlineType(e.typ, w) {
					return fmt.Errorf("%w: inline entry %d at byte %d has type byte %d for %d value bytes", ErrCorrupt, i, p, e.typ, w)
				}
			}
			e.end = q + c + w
			if e.end > bucketFlags {
				return fmt.Errorf("%w: inline entry %d at byte %d runs past the bucket", ErrCorrupt, i, p)
			}
			e.key = bk[q : q+c : q+c]
			e.val = bk[q+c : e.end : e.end]
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

// appendInline appends an inline entry (inlineSize must allow it).
func appendInline(dst, key []byte, t Type, val []byte) []byte {
	if t == TypeBytes {
		dst = append(dst, byte(len(key)), byte(len(val)))
	} else {
		dst = append(dst, byte(len(key)), byte(len(val))|inlineTyped, byte(t))
	}
	dst = append(dst, key...)
	return append(dst, val...)
}

// value returns an inline entry's value.
func (e *bucketEntry) value() Value { return Value{e.typ, e.val} }

// appendOutOfLine appends an entry pointing to the record at off.
func appendOutOfLine(dst []byte, h, off uint64) []byte {
	t := outTag(h)
	dst = append(dst, 0x80|byte(t>>8), byte(t))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(off))
	return binary.LittleEndian.AppendUint32(dst, uint32(off>>16))
}
