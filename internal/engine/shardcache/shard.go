package shardcache

import (
	"encoding/binary"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Entry layout in a shard's ring, little endian, unaligned:
//
//	[0:4)   value length (low 28 bits) | flagDead | flagTTL | flagStub
//	[4:6)   key length
//	[6:14)  expiry, int64 nanoseconds on the cache clock (only if flagTTL)
//	then the key, then the value.
//
// An entry stored inline in its index slot leaves only an 8-byte stub in
// the ring, which keeps its place in the eviction order:
//
//	[0:4)   flagStub (| flagDead)
//	[4:8)   the hash bits kept in its slot, to find the slot when evicting
//
// An entry may wrap around the end of the ring; every access goes through
// span, which returns at most two pieces.
const (
	hdrBase  = 6
	hdrTTL   = 14
	valMask  = 1<<28 - 1
	flagDead = 1 << 31
	flagTTL  = 1 << 30
	flagStub = 1 << 29
	stubSize = 8
	noExpiry = math.MaxInt64
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
	// slotUses is a 2-bit use count in the hint byte: SecondChance only
	// sets its low bit (referenced); TinyLFU counts hits up to 3 and adds
	// them to its sketch when the entry leaves the tail.
	slotUses     = 3 << useShift
	slotUse1     = 1 << useShift
	useShift     = 56
	hashBits     = 23
	slotHashMask = (1<<hashBits - 1) << 32
	slotOffMask  = 1<<32 - 1
	// slotChunkBytes is the index's allocation unit, one 4 KiB page: 128
	// inline slots or 512 compact ones.
	slotChunkBytes = 4096
	slotSize       = 32 // an inline slot; compact slots are 8 bytes
	// maxRelocations bounds the second chances given while making room
	// for one entry, so a Set costs O(1) copies even if every entry is hot.
	maxRelocations = 16
)

var le = binary.LittleEndian

// shard is one lock domain: an open-addressing index (linear probing,
// backward-shift deletion, no tombstones) over a byte ring used as a FIFO
// log. Both live off the Go heap; the struct itself holds no pointer to
// any entry. Shards sit side by side in one slice: the padding keeps each
// one's lock and counters off its neighbours' cache lines (128 bytes, as
// the adjacent-line prefetcher pairs lines).
type shard struct {
	// The padding comes first: a zero-length array as the last field would
	// itself add padding.
	_ [(128 - unsafe.Sizeof(shardFields{})%128) % 128]byte
	shardFields
}

type shardFields struct {
	// Read by every Get, written only by writers: one line. seq is odd
	// while a writer changes the index, the ring or a slot (see lock).
	// The current index table and the ring are published here for the
	// reads that take no lock (Get's optimistic path and GetBatch's
	// prefetch): the index regions and the ring stay mapped until the
	// shard array is garbage (Close only gives their pages back), so any
	// base read here, with any length up to maxSlots, is safe to touch.
	seq     atomic.Uint64
	pfIndex atomic.Pointer[byte]
	pfLen   atomic.Uint64
	pfRing  atomic.Pointer[byte]
	// Written by every Get, with plain increments (see bump), on the same
	// line, so that a Get touches one line of its shard.
	hits, misses, collisions uint64
	_                        [8]byte

	// Guarded by mu (written with it held exclusively).
	mu    sync.RWMutex
	index table
	ring  []byte
	// The index lives in one of two mappings reserved at maxSlots each
	// (address space only); growth rebuilds it into the other, so it
	// costs no mmap or munmap (which serialise on the process's memory
	// map and, unmapping, interrupt every other core to flush its TLB).
	// touched[r] is how many slots of region r may hold stale bytes.
	regions    [2][]byte
	touched    [2]uint64
	cur        int
	maxSlots   uint64
	shift      uint64 // log2 of the slot size (the cache's IndexLayout)
	count      int    // live entries (index slots in use)
	published  int    // count as last added to Cache.held (MaxEntries only)
	ttlCount   int    // live entries carrying an expiry
	head, tail uint64
	// headOff and tailOff are head and tail modulo len(ring); head and
	// tail themselves only grow (2^64 bytes never wrap in practice), which
	// lets the cleanup cursor survive eviction and Reset.
	headOff, tailOff uint64
	cursor           uint64 // cleanup position, in head/tail terms
	sets, deletes    uint64
	evictNoSpace     uint64
	expirations      uint64
	relocations      uint64
	growths          uint64
	rejections       uint64
	sketch           sketch // TinyLFU only: use counts, off the Go heap
	agedAt           uint64 // hits+sets when the sketch was last halved
	scratch          []byte // a wrapped key copied out for hashing
}

// lock takes the shard exclusively and makes seq odd, which tells the
// optimistic readers (Cache.tryGet) that the shard is changing: every
// change to the index, the ring or a slot happens between lock and
// unlock. Readers see seq odd, or changed when they load it again, and
// retry or take the read lock.
func (s *shard) lock() {
	s.mu.Lock()
	s.seq.Add(1)
	storeFence()
}

// unlock makes seq even again (its atomic increment orders the changes
// before it) and releases the shard.
func (s *shard) unlock() {
	s.seq.Add(1)
	s.mu.Unlock()
}

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

// init maps the shard's sketch; its ring and its two index regions, each
// maxSlots slots of 1<<shift bytes, are given (slices of the cache's ring
// and index mappings, unmapped by the cache).
func (s *shard) init(r []byte, maxSlots, sketchWords, shift uint64, regions [2][]byte) error {
	if sketchWords > 0 {
		sk, err := allocOffHeap(int(sketchWords * 8))
		if err != nil {
			return err
		}
		s.sketch = sketch{words: unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(sk))), sketchWords)}
	}
	s.ring, s.regions, s.maxSlots, s.shift = r, regions, maxSlots, shift
	s.cur, s.touched = 0, [2]uint64{chunkSlots(shift), 0}
	s.setIndex(tableOf(regions[0], chunkSlots(shift), shift))
	s.pfRing.Store(unsafe.SliceData(r))
	return nil
}

// free empties the shard for Close: it gives the pages of the ring and the
// index back (the cache unmaps them only once no reader can hold their
// addresses) and unmaps the sketch, which only writers touch. mu is held
// exclusively, and seq is odd.
func (s *shard) free() error {
	if s.ring == nil {
		return nil
	}
	dropPages(s.ring)
	for k, r := range s.regions {
		dropPages(r[:s.touched[k]<<s.shift])
	}
	err := s.freeSketch()
	s.ring, s.regions, s.scratch = nil, [2][]byte{}, nil
	s.setIndex(table{shift: s.shift})
	s.pfRing.Store(nil)
	s.count, s.ttlCount = 0, 0
	s.tail = s.head
	return err
}

// setIndex installs t as the index and publishes it for prefetching.
func (s *shard) setIndex(t table) {
	s.index = t
	s.pfIndex.Store((*byte)(t.base))
	s.pfLen.Store(t.n)
}

// freeSketch unmaps the sketch, if any.
func (s *shard) freeSketch() error {
	w := s.sketch.words
	s.sketch.words = nil
	if w == nil {
		return nil
	}
	return freeOffHeap(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*8))
}

// chunkSlots is how many slots of 1<<shift bytes make up slotChunkBytes.
func chunkSlots(shift uint64) uint64 { return slotChunkBytes >> shift }

// span returns the n ring bytes at pos (pos < 2·len(ring)) as one piece,
// or two when they wrap around the end.
func (s *shard) span(pos, n uint64) ([]byte, []byte) { return spanOf(s.ring, pos, n) }

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

// write copies p to the ring at pos (< len(ring)) and returns the position
// after it.
func (s *shard) write(pos uint64, p []byte) uint64 {
	r := s.ring
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

func (s *shard) wrap(pos uint64) uint64 {
	if size := uint64(len(s.ring)); pos >= size {
		return pos - size
	}
	return pos
}

// decode reads the entry header at off.
func (s *shard) decode(off uint64) entry { return decodeOf(s.ring, off) }

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

// lookup finds key's entry. Callers hold mu (shared or exclusive). For an
// inline hit, e.inline is set and the ring is not read.
func (s *shard) lookup(key []byte, h uint64) (entry, bool) {
	return s.find(s.index, s.ring, key, h)
}

// find looks key up in table idx and ring r. Get's optimistic path calls
// it without the lock, while a writer may be changing any byte it reads,
// so it only touches memory inside idx's n slots and r, and never
// panics, whatever it reads: each offset and length read is checked
// against the ring before use, and the probe stops after n slots (the
// caller then validates what it found with seq). Under the lock the
// checks always pass. Meta words are loaded atomically because Get may
// update a slot's use count concurrently.
func (s *shard) find(idx table, r []byte, key []byte, h uint64) (entry, bool) {
	n := idx.n
	if n == 0 { // closed
		return entry{}, false
	}
	size := uint64(len(r))
	hh := h >> (64 - hashBits)
	want := slotUsed | hh<<32
	i := (hh * n) >> hashBits
	for probes := n; probes > 0; probes-- {
		w := atomic.LoadUint64(idx.meta(i))
		if w&slotUsed == 0 {
			return entry{}, false
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
					return entry{i: i, slot: w, off: w & slotOffMask, kl: uint64(kl), vl: uint64(vl), exp: noExpiry, inline: true}, true
				}
			} else if off := w & slotOffMask; off < size {
				// An entry always fits in the ring, which also keeps
				// every span of it within r.
				e := decodeOf(r, off)
				if !e.stub && e.hl+e.kl+e.vl <= size && keyEqual(r, &e, key) {
					e.i, e.slot = i, w
					return e, true
				}
			}
			bump(&s.collisions)
		}
		if i++; i == n {
			i = 0
		}
	}
	return entry{}, false
}

// markRef sets slot i's referenced bit under the shared lock.
func (s *shard) markRef(i uint64) { atomic.OrUint64(s.index.meta(i), slotUse1) }

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
		a, b := s.span(e.off+e.hl, e.kl)
		key := a
		if b != nil {
			s.scratch = append(append(s.scratch[:0], a...), b...)
			key = s.scratch
		}
		hh = c.sum(key) >> (64 - hashBits)
	}
	want := slotUsed | hh<<32 | e.off
	idx := s.index
	n := idx.n
	i := (hh * n) >> hashBits
	for {
		w := *idx.meta(i)
		if w&slotUsed == 0 {
			panic("shardcache: index lost a live entry (is Config.Hash deterministic?)")
		}
		if w&^slotUses == want {
			return i
		}
		if i++; i == n {
			i = 0
		}
	}
}

// insertSlot adds a slot for an entry at off; the caller has ensured a
// free slot exists (load at most 3/4).
func (s *shard) insertSlot(h, off uint64, key, val []byte, exp int64) {
	hh := h >> (64 - hashBits)
	idx := s.index
	n := idx.n
	i := (hh * n) >> hashBits
	for *idx.meta(i)&slotUsed != 0 {
		if i++; i == n {
			i = 0
		}
	}
	*idx.meta(i) = slotUsed | hh<<32 | off
	if idx.inline() {
		setInline(idx.wide(i), key, val, s.inlinable(key, val, exp))
	}
}

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

// writeEntry writes an entry (or the stub of an inline one, hh being its
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

// reset empties the shard and gives its physical memory back.
func (s *shard) reset() {
	dropPages(s.ring)
	for k, r := range s.regions {
		dropPages(r[:s.touched[k]<<s.shift])
	}
	s.cur, s.touched = 0, [2]uint64{chunkSlots(s.shift), 0}
	s.setIndex(tableOf(s.regions[0], chunkSlots(s.shift), s.shift))
	if w := s.sketch.words; w != nil {
		dropPages(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*8))
	}
	s.count, s.ttlCount = 0, 0
	s.tail = s.head
	s.headOff, s.tailOff = 0, 0
}
