package mmapstore

import "encoding/binary"

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
