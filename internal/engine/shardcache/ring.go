package shardcache

import "unsafe"

// fifo is one queue of a shard: a ring of bytes used as a FIFO log,
// entries appended at the head and taken from the tail. A shard has two,
// side by side in its part of the cache's ring mapping: the window (a
// tenth of the bytes) and the main queue (the rest). An index slot holds an entry's offset in the
// shard's ring, base plus its offset in the queue, so the offset alone
// says which queue holds it (offsets below the window's length are the
// window's).
type fifo struct {
	ring []byte
	base uint64 // offset of ring[0] in the shard's ring
	// head and tail only grow (2^64 bytes never wrap in practice), which
	// lets the cleanup cursor survive eviction and Reset; headOff and
	// tailOff are them modulo len(ring).
	head, tail       uint64
	headOff, tailOff uint64
	cursor           uint64 // cleanup position, in head/tail terms
	count            int    // live entries
}

// size is the ring's length in bytes.
func (q *fifo) size() uint64 { return uint64(len(q.ring)) }

// free is how many bytes the ring has left.
func (q *fifo) free() uint64 { return q.size() - (q.head - q.tail) }

// span returns the n ring bytes at pos (pos < 2·len(ring)) as one piece,
// or two when they wrap around the end.
func (q *fifo) span(pos, n uint64) ([]byte, []byte) { return spanOf(q.ring, pos, n) }

// write copies p to the ring at pos (< len(ring)) and returns the position
// after it.
func (q *fifo) write(pos uint64, p []byte) uint64 {
	r := q.ring
	n := copy(r[pos:], p)
	if n < len(p) {
		return uint64(copy(r, p[n:]))
	}
	pos += uint64(n)
	if pos == uint64(len(r)) {
		pos = 0
	}
	return pos
}

// putStub writes the stub of an inline entry with hash bits hh at pos,
// which has stubSize bytes before the ring's end, in one 8-byte store:
// flagStub, then the hash bits (entry.go).
func (q *fifo) putStub(pos, hh uint64) {
	le.PutUint64(q.ring[pos:], flagStub|uint64(uint32(hh))<<32)
}

func (q *fifo) wrap(pos uint64) uint64 {
	if size := q.size(); pos >= size {
		return pos - size
	}
	return pos
}

// decode reads the entry header at off.
func (q *fifo) decode(off uint64) entry { return decodeOf(q.ring, off) }

// advance moves the tail past m bytes.
func (q *fifo) advance(m uint64) {
	q.tail += m
	q.tailOff = q.wrap(q.tailOff + m)
}

// push reserves m bytes at the head and returns their offset.
func (q *fifo) push(m uint64) uint64 {
	off := q.headOff
	q.head += m
	q.headOff = q.wrap(off + m)
	return off
}

// alignMin is the smallest value that padValue aligns, and valueAlign
// the alignment. Copying a value in or out of the ring is memmove, which
// aligns its stores and reads with unaligned loads, so a source that is
// not aligned like its destination splits loads across cache lines: on a
// 2-core Intel Xeon half a MiB copied from DRAM took 100-122 us with the
// source 13 bytes off (73-97 us with the destination off) against 55-62
// us aligned, and a cache's Gets of values of 4 KiB to 1 MiB copied 5.0-5.4
// GB/s from misaligned values against 7.4-8.6 from aligned ones. A large
// value is therefore placed where its address is a multiple of
// valueAlign, as the caller's buffers of that size are (the Go heap
// page-aligns them). Below a page of value the copy is a small part of a
// request and the padding (6 to 37 bytes) a larger part of the entry.
const (
	alignMin   = 4096
	valueAlign = 32
)

// padValue writes a padding record at the head when that puts the value
// of the entry about to be written there, starting at byte voff of it, on
// a valueAlign boundary, provided the ring has need free bytes besides
// the padding: the entry's size for a new one, 0 for one that moves from
// the tail of the same ring to its head (the head then still trails it,
// see relocate). The record is a dead entry (a header and filler), which
// the tail and the cleanup skip like any other. Without the room the
// entry goes unaligned: room is never made for padding, so it changes no
// eviction.
func (q *fifo) padValue(voff, need uint64) {
	addr := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(q.ring)))) + q.headOff + voff
	pad := -addr & (valueAlign - 1)
	if pad == 0 {
		return
	}
	for pad < hdrBase {
		pad += valueAlign
	}
	if q.free() < pad+need {
		return
	}
	var hdr [hdrBase]byte
	le.PutUint32(hdr[:], flagDead|uint32(pad-hdrBase))
	q.write(q.headOff, hdr[:])
	q.push(pad)
}

// empty forgets every entry (their bytes are left as they are).
func (q *fifo) empty() {
	q.tail = q.head
	q.headOff, q.tailOff = 0, 0
	q.count = 0
}

// subRing returns the queue ring of a shard's ring r (window of length
// small first, then main) that holds offset off, and off within it.
func subRing(r []byte, small, off uint64) ([]byte, uint64, uint8) {
	if off < small {
		return r[:small], off, 0
	}
	return r[small:], off - small, 1
}

// queueRing returns queue q's ring of a shard's ring r.
func queueRing(r []byte, small uint64, q uint8) []byte {
	if q == window {
		return r[:small]
	}
	return r[small:]
}
