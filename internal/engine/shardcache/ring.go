package shardcache

// fifo is one queue of a shard: a ring of bytes used as a FIFO log,
// entries appended at the head and taken from the tail. A shard has two,
// side by side in its part of the cache's ring mapping: the window (a
// tenth of the bytes, WindowTinyLFU and S3FIFO only; empty otherwise) and
// the main queue (the rest). An index slot holds an entry's offset in the
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
