package shardcache

import (
	"os"
	"sync/atomic"
	"unsafe"
)

// IndexLayout selects the size of the index slots, fixed at New for every
// shard (Config.Index).
type IndexLayout uint8

// Index layouts.
const (
	// InlineIndex (the default) has 32-byte slots: the meta word plus an
	// inline copy of an entry whose key and value fit in 22 bytes and that
	// has no TTL, so that a hit on such an entry is served from the slot's
	// cache line alone (one dependent miss). It costs ~43 bytes per entry
	// at the 3/4 load limit, whether or not the entries are small.
	InlineIndex IndexLayout = iota
	// CompactIndex has 8-byte slots, the meta word alone (~11 bytes per
	// entry at the load limit): every hit reads the entry from the ring
	// after the slot, two dependent misses. It suits caches whose entries
	// are too large to inline, for which the inline slot's 24 spare bytes
	// are only memory.
	CompactIndex
)

// String returns the layout's name.
func (l IndexLayout) String() string {
	switch l {
	case InlineIndex:
		return "inline"
	case CompactIndex:
		return "compact"
	}
	return "unknown"
}

// shift is log2 of the layout's slot size in bytes.
func (l IndexLayout) shift() uint64 {
	if l == CompactIndex {
		return compactShift
	}
	return inlineShift
}

const (
	inlineShift  = 5 // 32-byte slots (type slot)
	compactShift = 3 // 8-byte slots (the meta word)
)

// InlineMax is the most key plus value bytes an InlineIndex slot holds.
const InlineMax = inlineMax

// table is an index table: n slots of 1<<shift bytes in off-heap memory,
// slot i at base + i<<shift. Every slot starts with its meta word; only
// inline tables (shift == inlineShift) have the rest of type slot, and
// nothing past a compact slot's 8 bytes may be read.
type table struct {
	base  unsafe.Pointer
	n     uint64
	shift uint64
}

// tableOf views the first n slots of mapped memory mem as a table.
func tableOf(mem []byte, n, shift uint64) table {
	if n == 0 {
		return table{shift: shift}
	}
	_ = mem[n<<shift-1] // the table lies within mem
	return table{base: unsafe.Pointer(unsafe.SliceData(mem)), n: n, shift: shift}
}

// meta returns slot i's meta word.
func (t table) meta(i uint64) *uint64 { return (*uint64)(unsafe.Add(t.base, i<<t.shift)) }

// inline reports whether the table's slots hold inline entries.
func (t table) inline() bool { return t.shift == inlineShift }

// wide returns inline slot i; only for inline tables.
func (t table) wide(i uint64) *slot { return (*slot)(unsafe.Add(t.base, i<<inlineShift)) }

// inlineKV returns the key and value stored in slot i, or ok false when
// the table is compact or the slot's entry is not inline.
func (t table) inlineKV(i uint64) (key, val []byte, ok bool) {
	if !t.inline() {
		return nil, nil, false
	}
	p := t.wide(i)
	if p.klen == 0 {
		return nil, nil, false
	}
	kl := int(p.klen) - 1
	return p.data[:kl], p.data[kl : kl+int(p.vlen)], true
}

// move copies slot src over slot dst.
func (t table) move(dst, src uint64) {
	if t.inline() {
		*t.wide(dst) = *t.wide(src)
		return
	}
	*t.meta(dst) = *t.meta(src)
}

// empty clears slot i.
func (t table) empty(i uint64) {
	if t.inline() {
		*t.wide(i) = slot{}
		return
	}
	*t.meta(i) = 0
}

// bytes is the table's size in bytes.
func (t table) bytes() uint64 { return t.n << t.shift }

// lookup finds key's entry. Callers hold mu (shared or exclusive). For an
// inline hit, e.inline is set and the ring is not read.
func (s *shard) lookup(key []byte, h uint64) (e entry, ok bool) {
	ok = s.find(s.index, s.ring, s.q[window].size(), key, h, &e)
	return e, ok
}

// find looks key up in table idx and ring r, whose first small bytes are
// the window (fifo); the entry's offset is returned relative to its
// queue's ring, e.q. Get's optimistic path calls
// it without the lock, while a writer may be changing any byte it reads,
// so it only touches memory inside idx's n slots and r, and never
// panics, whatever it reads: each offset and length read is checked
// against the ring before use, and the probe stops after n slots (the
// caller then validates what it found with seq). Under the lock the
// checks always pass. Meta words are loaded atomically because Get may
// update a slot's use count concurrently. The entry found is stored in
// *e, which the caller owns (the result is not copied out through a
// return value); on a miss only e.i is set: the free slot that ended the
// probe run (n if none did), where set inserts the key.
func (s *shard) find(idx table, r []byte, small uint64, key []byte, h uint64, e *entry) bool {
	n := idx.n
	if n == 0 { // closed
		e.i = 0
		return false
	}
	size := uint64(len(r))
	hh := h >> (64 - hashBits)
	want := slotUsed | hh<<32
	i := (hh * n) >> hashBits
	for probes := n; probes > 0; probes-- {
		w := atomic.LoadUint64(idx.meta(i))
		if w&slotUsed == 0 {
			e.i = i
			return false
		}
		if w&(slotUsed|slotHashMask) == want {
			// wide is only formed for inline tables: past a compact
			// table's end it would not even be a valid address.
			var p *slot
			var klen uint8
			if idx.inline() {
				p = idx.wide(i)
				klen = p.klen
			}
			if klen != 0 {
				kl, vl := int(klen)-1, int(p.vlen)
				if kl == len(key) && kl+vl <= inlineMax && string(p.data[:kl]) == string(key) {
					_, off, q := subRing(r, small, w&slotOffMask)
					*e = entry{i: i, slot: w, off: off, q: q, kl: uint64(kl), vl: uint64(vl), exp: noExpiry, inline: true}
					return true
				}
			} else if off := w & slotOffMask; off < size {
				// An entry always fits in its queue's ring, which also
				// keeps every span of it within that ring.
				sub, off, q := subRing(r, small, off)
				*e = decodeOf(sub, off)
				if !e.stub && e.hl+e.kl+e.vl <= uint64(len(sub)) && keyEqual(sub, e, key) {
					e.i, e.slot, e.q = i, w, q
					return true
				}
			}
			bump(&s.collisions)
		}
		if i++; i == n {
			i = 0
		}
	}
	e.i = n
	return false
}

// countUse adds one to slot i's use count (below 3), whose meta word was
// w, under the shared lock; if another reader changed it meanwhile, this
// use is not counted. The locked read path (Cache.lockedReads) uses it;
// the optimistic one stores the hint byte instead (setUses).
func (s *shard) countUse(i, w uint64) {
	atomic.CompareAndSwapUint64(s.index.meta(i), w, w+slotUse1)
}

// hintByte is the offset of a meta word's top byte in memory: 7 on
// little-endian machines, 0 on big-endian ones.
var hintByte = func() uintptr {
	w := uint64(1) << useShift
	if *(*byte)(unsafe.Pointer(&w)) == 1 {
		return 0
	}
	return 7
}()

// setUses stores use count u (0 to 3) in the hint byte of meta word p:
// one plain byte store, no lock and no locked instruction. It may race
// with a writer and with other readers; the layout comment above says
// why that is harmless.
func setUses(p *uint64, u uint64) {
	*(*uint8)(unsafe.Add(unsafe.Pointer(p), hintByte)) = uint8(u)
}

// slotOf finds the index slot of a live entry read from the ring (eviction
// and cleanup), by rehashing its key and probing for its offset.
func (s *shard) slotOf(c *Cache, e *entry) uint64 {
	hh := e.hh
	if !e.stub {
		a, b := s.q[e.q].span(e.off+e.hl, e.kl)
		key := a
		if b != nil {
			s.scratch = append(append(s.scratch[:0], a...), b...)
			key = s.scratch
		}
		hh = c.sum(key) >> (64 - hashBits)
	}
	want := slotUsed | hh<<32 | (s.q[e.q].base + e.off)
	idx := s.index
	n := idx.n
	i := (hh * n) >> hashBits
	for {
		w := *idx.meta(i)
		if w&slotUsed == 0 {
			panic("shardcache: index lost a live entry (is Config.hash deterministic?)")
		}
		if w&^slotUses == want {
			return i
		}
		if i++; i == n {
			i = 0
		}
	}
}

// insertSlot adds a slot for an entry at off (in is its inlinable); the
// caller has ensured a free slot exists (load at most 3/4). free is the
// first free slot of the key's probe run when the caller knows it (a
// lookup's miss since which no slot was emptied and the table was not
// replaced), else noSlot, and the run is probed again.
func (s *shard) insertSlot(h, off uint64, key, val []byte, in bool, free uint64) {
	hh := h >> (64 - hashBits)
	idx := s.index
	n := idx.n
	i := free
	if i >= n {
		i = (hh * n) >> hashBits
		for *idx.meta(i)&slotUsed != 0 {
			if i++; i == n {
				i = 0
			}
		}
	}
	*idx.meta(i) = slotUsed | hh<<32 | off
	if idx.inline() {
		setInline(idx.wide(i), key, val, in)
	}
}

// noSlot is insertSlot's free when the caller does not know the slot.
const noSlot = ^uint64(0)

// setInline stores a small entry without TTL in its inline slot (in is
// its inlinable), or marks the slot as not inline.
func setInline(p *slot, key, val []byte, in bool) {
	if !in {
		p.klen, p.vlen = 0, 0
		return
	}
	p.klen, p.vlen = uint8(len(key)+1), uint8(len(val))
	copy(p.data[copy(p.data[:], key):], val)
}

// removeSlot empties slot i and shifts later members of its probe run
// back, so no tombstones are needed and probe runs stay short.
func (s *shard) removeSlot(i uint64) {
	s.slotGen++
	idx := s.index
	n := idx.n
	j := i
	for {
		if j++; j == n {
			j = 0
		}
		w := *idx.meta(j)
		if w&slotUsed == 0 {
			break
		}
		home := ((w & slotHashMask >> 32) * n) >> hashBits
		// w may move to the hole at i unless its home lies cyclically in
		// (i, j].
		if dist(home, j, n) >= dist(i, j, n) {
			idx.move(i, j)
			i = j
		}
	}
	idx.empty(i)
}

// dist is the cyclic distance from a forward to b in a table of n slots.
func dist(a, b, n uint64) uint64 {
	if b >= a {
		return b - a
	}
	return b + n - a
}

var pageSize = uint64(os.Getpagesize())

// pageRound rounds n bytes up to whole pages, the unit of resident memory.
func pageRound(n uint64) uint64 { return (n + pageSize - 1) / pageSize * pageSize }

func maxLoad(n int) int { return n / 4 * 3 }

func maxLoadU(n uint64) uint64 { return n / 4 * 3 }

// grow rebuilds the index twice as large (in whole pages, capped at
// maxSlots) from the hash bits kept in the slots, without touching the
// ring.
func (s *shard) grow() {
	old, sh := s.index, s.shift
	n := old.n
	chunk := chunkSlots(sh)
	nn := min((n*2+chunk-1)/chunk*chunk, s.maxSlots)
	other := 1 - s.cur
	mem := s.regions[other][:nn<<sh]
	// Bytes of an earlier table in this region are cleared; pages never
	// written read as zero, and are faulted in at once rather than one
	// trap per page during the rebuild.
	stale := min(s.touched[other], nn) << sh
	clear(mem[:stale])
	populate(mem[stale:])
	idx := tableOf(mem, nn, sh)
	for k := range n {
		w := *old.meta(k)
		if w&slotUsed == 0 {
			continue
		}
		j := ((w & slotHashMask >> 32) * nn) >> hashBits
		for *idx.meta(j)&slotUsed != 0 {
			if j++; j == nn {
				j = 0
			}
		}
		if sh == inlineShift {
			*idx.wide(j) = *old.wide(k)
		} else {
			*idx.meta(j) = w
		}
	}
	s.touched[other] = max(s.touched[other], nn)
	// The old table's pages stay resident for reuse by the next growth,
	// unless both tables together would exceed the index's share of the
	// memory limit (maxSlots, in whole pages): then they are given back.
	if pageRound(n<<sh)+pageRound(nn<<sh) > pageRound(s.maxSlots<<sh) {
		dropPages(s.regions[s.cur][:n<<sh])
		s.touched[s.cur] = 0
	}
	s.setIndex(idx)
	s.cur = other
	s.growths++
}
