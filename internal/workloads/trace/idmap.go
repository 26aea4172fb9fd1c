package trace

import (
	"math/bits"
	"math/rand/v2"
)

// idMap numbers the object IDs of a trace densely, in order of first
// request: the map of Normalize's forward pass, from a trace's own IDs to
// 0..n-1. It is an open-addressing table with linear probing whose key
// and number share a slot, so that a lookup of an object not in the CPU
// cache costs one memory access, where a map[uint64]uint64 costs two or
// more. Slots hash a key mixed with a seed drawn per table, so that IDs
// chosen to collide (a crafted trace) cannot be chosen without the seed;
// the table doubles at three quarters full.
type idMap struct {
	slots []idSlot
	n     int
	shift uint8 // 64 - log2(len(slots))
	seed  uint64
}

// idSlot holds one key, in two halves, and its number + 1 (0: the slot
// is empty): 12 bytes, so that the table holds 16 to 32 bytes per key
// (load 3/8 to 3/4), and 48 for the moment it doubles, within
// NormalizeBytesPerObject. A number fits 32 bits: Normalize stops at
// MaxObjects.
type idSlot struct {
	lo, hi, num uint32
}

// idMapMinSlots is the initial table size (a power of two).
const idMapMinSlots = 1 << 12

func newIDMap() *idMap {
	m := &idMap{seed: rand.Uint64()}
	m.alloc(idMapMinSlots)
	return m
}

func (m *idMap) alloc(slots int) {
	m.slots = make([]idSlot, slots)
	m.shift = uint8(64 - bits.TrailingZeros(uint(slots)))
}

// home is key's first slot: the high bits of the key mixed with the seed
// (the finaliser of MurmurHash3, a bijection, then a Fibonacci multiply).
func (m *idMap) home(key uint64) uint64 {
	h := key ^ m.seed
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return (h * 0x9e3779b97f4a7c15) >> m.shift
}

// number returns key's number, giving it the next one (Len before the
// call) if it has none yet; added says which.
func (m *idMap) number(key uint64) (num uint64, added bool) {
	mask := uint64(len(m.slots) - 1)
	for i := m.home(key); ; i = (i + 1) & mask {
		s := &m.slots[i]
		if s.num == 0 {
			if 4*(m.n+1) > 3*len(m.slots) {
				m.grow()
				return m.number(key)
			}
			s.lo, s.hi, s.num = uint32(key), uint32(key>>32), uint32(m.n)+1
			m.n++
			return uint64(s.num - 1), true
		}
		if s.lo == uint32(key) && s.hi == uint32(key>>32) {
			return uint64(s.num - 1), false
		}
	}
}

// grow doubles the table and reinserts every key with its number.
func (m *idMap) grow() {
	old := m.slots
	m.alloc(2 * len(old))
	mask := uint64(len(m.slots) - 1)
	for _, s := range old {
		if s.num == 0 {
			continue
		}
		i := m.home(uint64(s.hi)<<32 | uint64(s.lo))
		for m.slots[i].num != 0 {
			i = (i + 1) & mask
		}
		m.slots[i] = s
	}
}

// Len is the number of keys numbered.
func (m *idMap) Len() int { return m.n }
