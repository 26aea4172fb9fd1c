package shardcache

// hash bits) at off.
func (s *shard) writeEntry(off uint64, key, val []byte, exp int64, hh uint64) {
	var hdr [hdrTTL]byte
	if s.inlinable(key, val, exp) {
		le.PutUint32(hdr[:], flagStub)
		le.PutUint32(hdr[4:], uint32(hh))
		s.write(off, hdr[:stubSize])
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
	pos := s.write(off, hdr[:hl])
	pos = s.write(pos, key)
	s.write(pos, val)
}

func (s *shard) markDead(off uint64) {
	var b [4]byte
	x, y := s.span(off, 4)
	copy(b[copy(b[:], x):], y)
	le.PutUint32(b[:], le.Uint32(b[:])|flagDead)
	s.write(off, b[:])
}

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
	cand := -1 // TinyLFU: the new key's estimated use count
	var skp *uint64
	var skw uint64
	var sksh [4]uint
	if c.policy == TinyLFU {
		// Load the key's sketch word before probing the index, so that
		// the two cache misses overlap instead of following each other.
		skp, sksh = s.sketch.place(hh)
		skw = *skp
	}
	e, ok := s.lookup(key, h)
	if skp != nil {
		*skp = incremented(skw, sksh)
		if samples := counter(&s.hits) + s.sets; samples-s.agedAt >= sketchPeriod*uint64(max(s.count, 64)) {
			s.sketch.halve()
			s.agedAt = samples
		}
		if !ok {
			cand = int(minCounter(*skp, sksh))
		}
	}
	if ok {
		if e.inline && inline {
			// Inline to inline: only the slot changes.
			setInline(s.index.wide(e.i), key, val, true)
			return
		}
		if !e.inline && !inline && e.size() == n {
			// Same size: overwrite in place, keeping the slot (and its
			// referenced bit) and wasting no ring space.
			s.writeEntry(e.off, key, val, exp, hh)
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
		s.markDead(e.off)
		s.count--
		if e.exp != noExpiry {
			s.ttlCount--
		}
	}
	if !s.makeRoom(c, n, ev, cand) {
		s.rejections++
		ev.add(key, nil, val, nil, ReasonRejected)
		return
	}
	off := s.headOff
	s.writeEntry(off, key, val, exp, hh)
	s.head += n
	s.headOff = s.wrap(off + n)
	s.insertSlot(h, off, key, val, exp)
	s.count++
	if exp != noExpiry {
		s.ttlCount++
	}
}

// makeRoom evicts from the tail until n more ring bytes and one more index
// slot are available, growing the index first while it may, and the
// cache is below Config.MaxEntries (or this shard is empty). With cand ≥ 0
// (TinyLFU, a new key whose estimated use count is cand) it stops and
// returns false instead of evicting an unexpired entry estimated at least
// as popular; entries evicted before that stay evicted.
func (s *shard) makeRoom(c *Cache, n uint64, ev *evictions, cand int) bool {
	relocs := 0
	size := uint64(len(s.ring))
	for size-(s.head-s.tail) < n {
		if !s.evictTail(c, ev, &relocs, cand) {
			return false
		}
	}
	for {
		// The entry cap first: an eviction for it also makes room in
		// the index.
		if !c.atCap(s) {
			if s.count+1 <= maxLoad(int(s.index.n)) {
				return true
			}
			if s.index.n < s.maxSlots {
				s.grow()
				continue
			}
		}
		if !s.evictTail(c, ev, &relocs, cand) {
			return false
		}
	}
}

// evictTail frees the entry at the tail: skips it if dead, gives it a
// second chance (moves it to the head) if it was read and the policy
// allows, or else removes it, unless cand ≥ 0 and the entry's estimated
// use count is at least cand: then it keeps it and returns false.
func (s *shard) evictTail(c *Cache, ev *evictions, relocs *int, cand int) bool {
	e := s.decode(s.tailOff)
	m := e.size()
	if e.flags&flagDead == 0 {
		e.i = s.slotOf(c, &e)
		w := *s.index.meta(e.i)
		expired := e.exp != noExpiry && e.exp <= c.now()
		hh := (w & slotHashMask) >> 32
		if c.policy == TinyLFU {
			// The hits counted in the slot since the entry was written
			// or last moved join the sketch (and the slot's count is
			// cleared by relocate or remove).
			s.sketch.add(hh, (w&slotUses)/slotUse1)
		}
		if !expired && c.policy != FIFO && w&slotUses != 0 && *relocs < maxRelocations {
			*relocs++
			s.relocate(e.i, e.off, m)
			return true
		}
		if !expired && cand >= 0 && int(s.sketch.estimate(hh)) >= cand {
			// The victim wins and moves to the head, so that the next
			// new key meets the next entry: a victim that stayed at the
			// tail would shield everything behind it, cold entries too.
			s.relocate(e.i, e.off, m)
			return false
		}
		reason := ReasonNoSpace
		if expired {
			reason = ReasonExpired
		}
		s.remove(&e, reason, ev)
	}
	s.tail += m
	s.tailOff = s.wrap(s.tailOff + m)
	return true
}

// relocate moves the m-byte live entry at the tail (slot i) to the head
// and clears its referenced bit. The destination can overlap the source
// only when the ring is nearly full, and then it lies before it, so a
// forward copy through a small buffer is safe.
func (s *shard) relocate(i, src, m uint64) {
	dst := s.headOff
	var tmp [256]byte
	for left := m; left > 0; {
		k := min(left, uint64(len(tmp)))
		x, y := s.span(src, k)
		copy(tmp[copy(tmp[:], x):], y)
		dst = s.write(dst, tmp[:k])
		src = s.wrap(src + k)
		left -= k
	}
	p := s.index.meta(i)
	*p = *p&^(slotUses|slotOffMask) | s.headOff
	s.head += m
	s.headOff = s.wrap(s.headOff + m)
	s.tail += m
	s.tailOff = s.wrap(s.tailOff + m)
	s.relocations++
}

// remove drops a live entry (its slot is e.i), counts it under reason and
// queues it for OnEvict.
func (s *shard) remove(e *entry, reason EvictReason, ev *evictions) {
	if ev != nil {
		var k1, k2, v1, v2 []byte
		if k, v, ok := s.index.inlineKV(e.i); ok {
			k1, v1 = k, v
		} else {
			k1, k2 = s.span(e.off+e.hl, e.kl)
			v1, v2 = s.span(e.off+e.hl+e.kl, e.vl)
		}
		ev.add(k1, k2, v1, v2, reason)
	}
	s.removeSlot(e.i)
	s.markDead(e.off)
	s.count--
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

// trimTail advances the tail over dead entries, returning their ring space
// at once (after Delete and cleanup).
func (s *shard) trimTail() {
	for s.tail < s.head {
		e := s.decode(s.tailOff)
		if e.flags&flagDead == 0 {
			return
		}
		m := e.size()
		s.tail += m
		s.tailOff = s.wrap(s.tailOff + m)
	}
	// Empty: restart at the ring's start so fresh entries do not wrap.
	s.headOff, s.tailOff = 0, 0
}

// cleanBatch removes expired entries from the cursor on, scanning at most
// budget ring bytes; the cursor is at or after the tail.
func (s *shard) cleanBatch(c *Cache, now int64, budget uint64, ev *evictions) (removed int, scanned uint64) {
	pos := s.wrap(s.tailOff + (s.cursor - s.tail))
	for s.cursor < s.head && scanned < budget && s.ttlCount > 0 {
		e := s.decode(pos)
		m := e.size()
		if e.flags&flagDead == 0 && e.exp <= now {
			e.i = s.slotOf(c, &e)
			s.remove(&e, ReasonExpired, ev)
			removed++
		}
		s.cursor += m
		pos = s.wrap(pos + m)
		scanned += m
	}
	if s.ttlCount == 0 {
		s.cursor = s.head
	}
	return removed, scanned
}
