package shardcache

import (
	"encoding/binary"
	"math"
)

// Entry layout in a shard's ring, little endian, unaligned:
//
//	[0:4)   value length (low 27 bits) | flagDead | flagTTL | flagStub | flagKept | flagTrial
//	[4:6)   key length
//	[6:14)  expiry, int64 nanoseconds on the cache clock (only if flagTTL)
//	then the key, then the value.
//
// An entry stored inline in its index slot leaves only an 8-byte stub in
// the ring, which keeps its place in the eviction order:
//
//	[0:4)   flagStub (| flagDead | flagKept | flagTrial)
//	[4:8)   the hash bits kept in its slot, to find the slot when evicting
//
// An entry may wrap around the end of the ring; every access goes through
// span, which returns at most two pieces.
const (
	hdrBase  = 6
	hdrTTL   = 14
	valMask  = 1<<27 - 1
	flagDead = 1 << 31
	flagTTL  = 1 << 30
	flagStub = 1 << 29
	// flagKept marks a main-queue entry that won a contest
	// at the tail and has not been read since (see climber).
	flagKept = 1 << 28
	// flagTrial marks a main-queue entry that moved on from the window
	// because it was read there, until it is read in the main queue
	// (see trialDiscount).
	flagTrial = 1 << 27
	stubSize  = 8
	noExpiry  = math.MaxInt64
)

// Index slot layout: 32 bytes, two per cache line, no Go pointers. The
// meta word's low 7 bytes are 0 for an empty slot, else:
//
//	bits 56..57 the use count (the hint byte, below)
//	bit 55      used
//	bits 32..54 the key hash's top 23 bits
//	bits 0..31  the entry's offset in the ring
//
// The top byte (bits 56..63) is the hint byte: the use count, which Get
// updates with a plain one-byte store, without the shard's lock and
// without a locked instruction. Such a store may land after a writer has
// moved another entry into the slot or emptied it: it then sets that
// entry's use count, or leaves a nonzero top byte in an empty slot. So
// the top byte only ever means "use count" (a wrong one is a harmless
// hint), and a slot is empty when its used bit is clear, whatever its
// top byte; writers always store whole words.
//
// The hash bits serve both as a tag, so that most probes that do not match
// never touch the ring, and to recompute the home slot when the table grows
// without reading any entry. The home slot is the fast-range reduction
// (hash30 × n) >> 30, so table sizes need not be powers of two.
//
// A small entry without TTL (key+value ≤ inlineMax bytes) is stored in the
// slot itself (klen = key length + 1, 0 when not inline): a hit on it is
// served from the slot's cache line alone, one DRAM miss instead of two.
// The ring keeps an 8-byte stub for it, because eviction order and memory
// accounting are driven by the ring.
type slot struct {
	meta uint64
	klen uint8
	vlen uint8
	data [inlineMax]byte
}

const inlineMax = 22

const (
	slotUsed = 1 << 55
	// slotUses is a 2-bit use count in the hint byte: Get counts hits up
	// to 3, and the policy adds them to its sketch when the entry passes a
	// queue's tail.
	slotUses     = 3 << useShift
	slotUse1     = 1 << useShift
	useShift     = 56
	hashBits     = 23
	slotHashMask = (1<<hashBits - 1) << 32
	slotOffMask  = 1<<32 - 1
	// slotChunkBytes is the index's allocation unit, one 4 KiB page: 128
	// inline slots or 512 compact ones.
	slotChunkBytes = 4096
	// maxRelocations bounds the second chances given while making room
	// for one entry (see relocBudget).
	maxRelocations = 16
)

var le = binary.LittleEndian

// entry is a decoded entry header plus where it was found.
type entry struct {
	i, slot    uint64 // index slot and its content (lookup only)
	off        uint64 // offset of the header in the ring
	hl, kl, vl uint64 // header, key and value lengths
	flags      uint32
	exp        int64 // noExpiry if none
	inline     bool  // found inline in its slot (lookup); kl, vl from the slot
	stub       bool  // decoded from a ring stub; hh holds its hash bits
	hh         uint64
	// q is the queue whose ring holds the entry (window or main; see
	// fifo), and off is relative to that ring.
	q uint8
}

// size is the entry's length in the ring.
func (e *entry) size() uint64 {
	if e.inline || e.stub {
		return stubSize
	}
	return e.hl + e.kl + e.vl
}

// inlinable reports whether an entry is stored in its slot: small, no
// TTL, and the index has inline slots.
func (s *shard) inlinable(key, val []byte, exp int64) bool {
	return s.shift == inlineShift && exp == noExpiry && len(key)+len(val) <= inlineMax
}

// chunkSlots is how many slots of 1<<shift bytes make up slotChunkBytes.
func chunkSlots(shift uint64) uint64 { return slotChunkBytes >> shift }

// spanOf is span on ring r, given n ≤ len(r).
func spanOf(r []byte, pos, n uint64) ([]byte, []byte) {
	size := uint64(len(r))
	if pos >= size {
		pos -= size
	}
	if end := pos + n; end <= size {
		return r[pos:end], nil
	}
	return r[pos:], r[:pos+n-size]
}

// decodeOf reads the entry header at off (< len(r)) in ring r, which is at
// least hdrTTL bytes long.
func decodeOf(r []byte, off uint64) entry {
	var w0 uint32
	var kl uint16
	var exp uint64
	if off+hdrTTL <= uint64(len(r)) {
		b := r[off : off+hdrTTL]
		w0, kl, exp = le.Uint32(b), le.Uint16(b[4:]), le.Uint64(b[6:])
	} else {
		var b [hdrTTL]byte
		x, y := spanOf(r, off, hdrTTL)
		copy(b[copy(b[:], x):], y)
		w0, kl, exp = le.Uint32(b[:]), le.Uint16(b[4:]), le.Uint64(b[6:])
	}
	e := entry{off: off, hl: hdrBase, kl: uint64(kl), vl: uint64(w0 & valMask), flags: w0 &^ valMask, exp: noExpiry}
	if w0&flagStub != 0 {
		// The stub's hash bits are bytes [4:8): the key length field and
		// the low half of the first expiry word.
		return entry{off: off, flags: w0 &^ valMask, exp: noExpiry, stub: true, hh: uint64(kl) | (exp&0xffff)<<16}
	}
	if w0&flagTTL != 0 {
		e.hl, e.exp = hdrTTL, int64(exp)
	}
	return e
}

// keyEqual compares key with the stored key of entry e of ring r; the
// entry fits in the ring (see find).
func keyEqual(r []byte, e *entry, key []byte) bool {
	if e.kl != uint64(len(key)) {
		return false
	}
	a, b := spanOf(r, e.off+e.hl, e.kl)
	return string(a) == string(key[:len(a)]) && string(b) == string(key[len(a):])
}

// appendValue appends the value of entry e, found by find in table idx
// and ring r, to dst.
func appendValue(idx table, r []byte, dst []byte, e entry) []byte {
	if e.inline {
		return append(dst, idx.wide(e.i).data[e.kl:e.kl+e.vl]...)
	}
	a, b := spanOf(r, e.off+e.hl+e.kl, e.vl)
	dst = append(dst, a...)
	if b != nil {
		dst = append(dst, b...)
	}
	return dst
}
