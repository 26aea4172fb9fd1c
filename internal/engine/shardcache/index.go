package shardcache

import "unsafe"

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
