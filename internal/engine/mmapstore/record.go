package mmapstore

import "encoding/binary"

// Record layout (see FORMAT.md, "Records"):
//
//	uvarint keyLen
//	uvarint valWord            valLen<<2 | typed<<1 | isRef
//	[u8 type]                  only when typed: the value's Type, 1..7
//	[uvarint valOffset]        only when isRef: absolute offset of the value bytes
//	key bytes
//	[zero bytes]               only when !isRef and the type is aligned: up
//	                           to 7, so that the value starts at a multiple of 8
//	[value bytes]              only when !isRef
//
// A TypeBytes value is stored untyped (no type byte), so a store of
// plain bytes takes what it took before types existed.

// Bits of the valWord.
const (
	valRefBit   = 1
	valTypedBit = 2
	valLenShift = 2
)

// valueAlign is the alignment of aligned values (numeric lists) in the
// file: their 8-byte words can then be read in place.
const valueAlign = 8

// appendRecordHeader appends the header of a record: its varints and
// type byte. It does not append the key, the padding or the value.
func appendRecordHeader(dst []byte, keyLen, valLen int, t Type, ref bool, valOff uint64) []byte {
	dst = binary.AppendUvarint(dst, uint64(keyLen))
	w := uint64(valLen) << valLenShift
	if ref {
		w |= valRefBit
	}
	if t != TypeBytes {
		w |= valTypedBit
	}
	dst = binary.AppendUvarint(dst, w)
	if t != TypeBytes {
		dst = append(dst, byte(t))
	}
	if ref {
		dst = binary.AppendUvarint(dst, valOff)
	}
	return dst
}

// record is one decoded record; offsets are absolute file offsets.
type record struct {
	keyOff, keyLen uint64
	valOff, valLen uint64
	typ            Type
	ref            bool
	end            uint64 // offset just past the record
}

// decodeRecord decodes the record starting at off in recs (recs[i] is the
// file byte at offset i; len(recs) is the end of the records section).
// Every length is checked against the section, the type byte against the
// known types and the value's size against its type (Type.fits), and an
// aligned value's offset and padding, so a corrupt record yields ok ==
// false and never an out-of-range slice or a value of the wrong shape.
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
	r.valLen = w >> valLenShift
	r.ref = w&valRefBit != 0
	if w&valTypedBit != 0 {
		if p >= uint64(len(b)) {
			return r, false
		}
		r.typ = Type(b[p])
		p++
		// A typed record never says TypeBytes: one encoding per value.
		if r.typ == TypeBytes || r.typ >= numTypes {
			return r, false
		}
	}
	if !r.typ.fits(r.valLen) {
		return r, false
	}
	if r.ref {
		if !dedup {
			return r, false
		}
		vo, n := binary.Uvarint(b[p:])
		if n <= 0 {
			return r, false
		}
		p += uint64(n)
		// A referenced value lies wholly before this record, so following
		// references can never loop.
		if vo < HeaderSize || vo > off || r.valLen > off-vo || (r.typ.aligned() && vo%valueAlign != 0) {
			return r, false
		}
		r.valOff = vo
		if kl > uint64(len(b))-p {
			return r, false
		}
		r.keyOff = off + p
		r.keyLen = kl
		r.end = r.keyOff + kl
		return r, true
	}
	rest := uint64(len(b)) - p
	if kl > rest {
		return r, false
	}
	r.keyOff = off + p
	r.keyLen = kl
	r.valOff = r.keyOff + kl
	if r.typ.aligned() {
		pad := alignUp(r.valOff, valueAlign) - r.valOff
		if pad > rest-kl {
			return r, false
		}
		for _, c := range recs[r.valOff : r.valOff+pad] {
			if c != 0 {
				return r, false
			}
		}
		r.valOff += pad
		rest -= pad
	}
	if r.valLen > rest-kl {
		return r, false
	}
	r.end = r.valOff + r.valLen
	return r, true
}

// value returns the record's value as a slice of recs.
func (r *record) value(recs []byte) Value {
	end := r.valOff + r.valLen
	return Value{r.typ, recs[r.valOff:end:end]}
}
