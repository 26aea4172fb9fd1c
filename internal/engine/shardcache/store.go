package shardcache

// writeEntry writes an entry (or the stub of an inline one, hh being its
// hash bits) at off in queue q, wrapping at the ring's end. set writes a
// stub that does not wrap itself, in one store (fifo.putStub).
func (s *shard) writeEntry(q *fifo, off uint64, key, val []byte, exp int64, hh uint64) {
	var hdr [hdrTTL]byte
	if s.inlinable(key, val, exp) {
		le.PutUint32(hdr[:], flagStub)
		le.PutUint32(hdr[4:], uint32(hh))
		q.write(off, hdr[:stubSize])
		return
	}
	w0, hl := uint32(len(val)), hdrBase
	if exp != noExpiry {
		w0 |= flagTTL
		hl = hdrTTL
		le.PutUint64(hdr[6:], uint64(exp))
	}
	le.PutUint32(hdr[:], w0)
	le.PutUint16(hdr[4:], uint16(len(key)))
	pos := q.write(off, hdr[:hl])
	pos = q.write(pos, key)
	q.write(pos, val)
}

// setFlag sets or clears header flag f of the entry at off.
func setFlag(q *fifo, off uint64, f uint32, on bool) {
	var b [4]byte
	x, y := q.span(off, 4)
	copy(b[copy(b[:], x):], y)
	w := le.Uint32(b[:]) &^ f
	if on {
		w |= f
	}
	le.PutUint32(b[:], w)
	q.write(off, b[:])
}

func markDead(q *fifo, off uint64) { setFlag(q, off, flagDead, true) }

// set stores key/val; mu is held exclusively and the size was checked.
func (s *shard) set(c *Cache, key, val []byte, h uint64, exp int64, ev *evictions) {
	hh := h >> (64 - hashBits)
	inline := s.inlinable(key, val, exp)
	n := uint64(stubSize)
	if !inline {
		n = hdrBase + uint64(len(key)) + uint64(len(val))
		if exp != noExpiry {
			n += hdrTTL - hdrBase
		}
	}
	s.sets++
	t := s.pol.touch(s, hh)
	// lookup, with find storing the entry here. On a miss e.i is the free
	// slot where the probe ended, the slot the new entry takes unless a
	// slot is emptied or the table replaced before it is inserted
	// (slotGen).
	var e entry
	ok := s.find(s.index, s.ring, s.q[window].size(), key, h, &e)
	gen := s.slotGen
	s.pol.count(s, t)
	if ok {
		q := &s.q[e.q]
		if e.inline && inline {
			// Inline to inline: only the slot changes.
			setInline(s.index.wide(e.i), key, val, true)
			return
		}
		if !e.inline && !inline && e.size() == n {
			// Same size: overwrite in place, keeping the slot (and its
			// use count) and wasting no ring space.
			s.writeEntry(q, e.off, key, val, exp, hh)
			if e.exp != noExpiry {
				s.ttlCount--
			}
			if exp != noExpiry {
				s.ttlCount++
			}
			return
		}
		// Overwrites are silent: no callback for the old value.
		s.removeSlot(e.i)
		markDead(q, e.off)
		s.count--
		q.count--
		if e.exp != noExpiry {
			s.ttlCount--
		}
	}
	q := s.pol.admit(s, c, hh, n, t, ev)
	if q == nil {
		s.rejections++
		ev.add(key, nil, val, nil, ReasonRejected)
		return
	}
	if !inline && len(val) >= alignMin {
		q.padValue(n-uint64(len(val)), n)
	}
	off := q.push(n)
	if inline && off+stubSize <= q.size() {
		q.putStub(off, hh) // writeEntry's commonest case, without the call
	} else {
		s.writeEntry(q, off, key, val, exp, hh)
	}
	free := noSlot
	if !ok && s.slotGen == gen {
		free = e.i
	}
	s.insertSlot(h, q.base+off, key, val, inline, free)
	s.count++
	q.count++
	if exp != noExpiry {
		s.ttlCount++
	}
}

// relocate moves the m-byte live entry at the tail of queue from (slot i)
// to the head of queue to, with use count uses, and returns its new
// offset in to's ring. Within one ring the destination can overlap the
// source only when the ring is nearly full, and then it lies before it, so
// a forward copy is safe; the caller has made room in to otherwise. A
// large value is aligned at its new place (padValue) when to has room for
// the padding: within one ring that is free bytes for the padding alone,
// which keep the destination before the source.
func (s *shard) relocate(i uint64, from, to int, m, uses uint64) uint64 {
	src, dst := &s.q[from], &s.q[to]
	if m >= alignMin {
		e := src.decode(src.tailOff)
		if !e.stub && e.vl >= alignMin {
			need := m
			if from == to {
				need = 0
			}
			dst.padValue(e.hl+e.kl, need)
		}
	}
	// Copy in at most three pieces, each contiguous in both rings. Within
	// one ring the head trails the tail by the free bytes, so a piece
	// never writes over bytes a later piece still has to read, and copy
	// (memmove) handles the overlap within a piece; window and main are
	// separate rings.
	at, pos := src.tailOff, dst.headOff
	for left := m; left > 0; {
		k := min(left, src.size()-at, dst.size()-pos)
		copy(dst.ring[pos:pos+k], src.ring[at:at+k])
		at, pos = src.wrap(at+k), dst.wrap(pos+k)
		left -= k
	}
	off := dst.headOff
	p := s.index.meta(i)
	*p = *p&^(slotUses|slotOffMask) | (dst.base + off) | uses<<useShift
	src.advance(m)
	dst.push(m)
	if from != to {
		src.count--
		dst.count++
		s.promotions++
	} else {
		s.relocations++
	}
	return off
}

// remove drops a live entry (its slot is e.i), counts it under reason and
// queues it for OnEvict.
func (s *shard) remove(e *entry, reason EvictReason, ev *evictions) {
	q := &s.q[e.q]
	if ev != nil {
		var k1, k2, v1, v2 []byte
		if k, v, ok := s.index.inlineKV(e.i); ok {
			k1, v1 = k, v
		} else {
			k1, k2 = q.span(e.off+e.hl, e.kl)
			v1, v2 = q.span(e.off+e.hl+e.kl, e.vl)
		}
		ev.add(k1, k2, v1, v2, reason)
	}
	s.removeSlot(e.i)
	markDead(q, e.off)
	s.count--
	q.count--
	if e.exp != noExpiry {
		s.ttlCount--
	}
	switch reason {
	case ReasonDeleted:
		s.deletes++
	case ReasonExpired:
		s.expirations++
	case ReasonNoSpace:
		s.evictNoSpace++
	}
}

// tail decodes the entry at the tail of queue k; a live one comes with
// its slot (e.i), hash bits and use count.
func (s *shard) tail(c *Cache, k int) (e entry, hh, uses uint64) {
	q := &s.q[k]
	e = q.decode(q.tailOff)
	e.q = uint8(k)
	if e.flags&flagDead == 0 {
		e.i = s.slotOf(c, &e)
		meta := *s.index.meta(e.i)
		hh, uses = (meta&slotHashMask)>>32, (meta&slotUses)/slotUse1
	}
	return e, hh, uses
}

// evict removes the live entry e at its queue's tail (remove) and
// advances the tail past it.
func (s *shard) evict(e *entry, reason EvictReason, ev *evictions) {
	s.remove(e, reason, ev)
	s.q[e.q].advance(e.size())
}

// hasSlot reports whether the index can take one more entry within its
// load limit, growing it while it may.
func (s *shard) hasSlot() bool {
	return s.count+1 <= maxLoad(int(s.index.n)) || s.growForSlot()
}

// growForSlot is hasSlot's growth: it grows the index until it can take
// one more entry, or reports false at maxSlots.
func (s *shard) growForSlot() bool {
	for s.count+1 > maxLoad(int(s.index.n)) {
		if s.index.n >= s.maxSlots {
			return false
		}
		s.grow()
	}
	return true
}

// trimTail advances each queue's tail over dead entries, returning their
// ring space at once (after Delete and cleanup).
func (s *shard) trimTail() {
	for k := range s.q {
		q := &s.q[k]
		for q.tail < q.head {
			e := q.decode(q.tailOff)
			if e.flags&flagDead == 0 {
				break
			}
			q.advance(e.size())
		}
		if q.tail == q.head {
			// Empty: restart at the ring's start so fresh entries do
			// not wrap.
			q.headOff, q.tailOff = 0, 0
		}
	}
}

// cleanBatch removes expired entries of queue k from its cursor on,
// scanning at most budget ring bytes; the cursor is at or after the tail.
func (s *shard) cleanBatch(c *Cache, k int, now int64, budget uint64, ev *evictions) (removed int, scanned uint64) {
	q := &s.q[k]
	pos := q.wrap(q.tailOff + (q.cursor - q.tail))
	for q.cursor < q.head && scanned < budget && s.ttlCount > 0 {
		e := q.decode(pos)
		e.q = uint8(k)
		m := e.size()
		if e.flags&flagDead == 0 && e.exp <= now {
			e.i = s.slotOf(c, &e)
			s.remove(&e, ReasonExpired, ev)
			removed++
		}
		q.cursor += m
		pos = q.wrap(pos + m)
		scanned += m
	}
	if s.ttlCount == 0 {
		q.cursor = q.head
	}
	return removed, scanned
}

// relocBudget bounds the second chances given while making room for one
// entry of n bytes: at most maxRelocations moves, and at most
// max(n, minRelocBytes) bytes copied, so that the second chances of a
// Set copy no more than the Set itself even if every entry is hot.
// Beyond it a used entry is evicted like an unused one. Without the byte
// bound a Set of a large value behind large hot entries would copy up to
// 16 of them, a latency tail of its own.
type relocBudget struct {
	moves int
	bytes uint64
}

func newRelocs(n uint64) relocBudget {
	return relocBudget{moves: maxRelocations, bytes: max(n, minRelocBytes)}
}

// minRelocBytes is the byte budget of a Set of a small entry: 16 moves of
// entries up to 4 KiB.
const minRelocBytes = 64 << 10

// take reports whether an m-byte entry may be moved, and counts it.
func (r *relocBudget) take(m uint64) bool {
	if r.moves == 0 || m > r.bytes {
		return false
	}
	r.moves--
	r.bytes -= m
	return true
}
