package workloads

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
)

// WriteBit marks an operation in Workload.Ops as a write (mixed scenario);
// the remaining bits are the key index.
const WriteBit = 1 << 31

// minSizedValue is the smallest sized value: 8 bytes of key index and a
// 4-byte check.
const minSizedValue = 12

// Workload is a fully pre-generated workload. Keys and values live in two
// large arenas so that generating them leaves only a few heap objects
// (the slice headers) behind.
type Workload struct {
	Spec Spec
	// Keys[i] is key i ("key_%d").
	Keys [][]byte
	// Values[i] is the value written under key i.
	Values [][]byte
	// Insert is the order in which keys are inserted (insert-lookup) or
	// prefilled (mixed).
	Insert []uint32
	// Lookup is the shuffled lookup order (insert-lookup).
	Lookup []uint32
	// Ops is the access sequence of mixed and get-or-set: key indexes with
	// WriteBit set for writes.
	Ops []uint32
	// hot is a bitset of hot keys (hotcold, zipf); nil for uniform.
	hot []uint64
	// KeyBytes and ValueBytes are the total sizes, for memory budgets.
	KeyBytes, ValueBytes int64
}

// Generate builds the workload described by s. It is deterministic in s.
func Generate(s Spec) (*Workload, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	w := &Workload{Spec: s}
	// Separate streams per purpose, so changing (say) the op count does not
	// change the values.
	rngValues := rand.New(rand.NewPCG(s.Seed, 1))
	rngOrder := rand.New(rand.NewPCG(s.Seed, 2))
	rngOps := rand.New(rand.NewPCG(s.Seed, 3))

	w.genKeys()
	w.genValues(rngValues)

	n := s.Keys
	w.Insert = make([]uint32, n)
	for i := range w.Insert {
		w.Insert[i] = uint32(i)
	}
	switch s.Scenario {
	case InsertLookup:
		w.Lookup = make([]uint32, n)
		copy(w.Lookup, w.Insert)
		rngOrder.Shuffle(n, func(i, j int) { w.Lookup[i], w.Lookup[j] = w.Lookup[j], w.Lookup[i] })
	case Mixed, GetOrSet:
		// Prefill (mixed) in shuffled order so that insertion order carries
		// no locality the lookups could exploit.
		rngOrder.Shuffle(n, func(i, j int) { w.Insert[i], w.Insert[j] = w.Insert[j], w.Insert[i] })
		if err := w.genOps(rngOps); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown scenario %q", s.Scenario)
	}
	return w, nil
}

func (w *Workload) genKeys() {
	n := w.Spec.Keys
	// Size the arena exactly ("key_" plus the digits of each index) so it
	// is allocated once.
	size := 0
	for i := 0; i < n; i++ {
		size += 4 + digits(i)
	}
	arena := make([]byte, 0, size)
	w.Keys = make([][]byte, n)
	for i := 0; i < n; i++ {
		start := len(arena)
		arena = append(arena, "key_"...)
		arena = strconv.AppendInt(arena, int64(i), 10)
		w.Keys[i] = arena[start:len(arena):len(arena)]
	}
	w.KeyBytes = int64(len(arena))
}

func digits(i int) int {
	d := 1
	for ; i >= 10; i /= 10 {
		d++
	}
	return d
}

func (w *Workload) genValues(rng *rand.Rand) {
	n := w.Spec.Keys
	w.Values = make([][]byte, n)
	if w.Spec.ValueMax == 0 {
		arena := make([]byte, 0, int(w.KeyBytes)) // "val_%d" has the length of "key_%d"
		for i := 0; i < n; i++ {
			start := len(arena)
			arena = append(arena, "val_"...)
			arena = strconv.AppendInt(arena, int64(i), 10)
			w.Values[i] = arena[start:len(arena):len(arena)]
		}
		w.ValueBytes = int64(len(arena))
		return
	}
	sizes := make([]int, n)
	total := 0
	span := w.Spec.ValueMax - w.Spec.ValueMin + 1
	for i := range sizes {
		sizes[i] = w.Spec.ValueMin + rng.IntN(span)
		total += sizes[i]
	}
	arena := make([]byte, total)
	off := 0
	for i := 0; i < n; i++ {
		v := arena[off : off+sizes[i] : off+sizes[i]]
		FillValue(v, uint64(i))
		w.Values[i] = v
		off += sizes[i]
	}
	w.ValueBytes = int64(total)
}

// FillValue writes the sized value of key index idx into v (len(v) >= 12):
// the index, a check derived from it, then filler derived from both, so a
// value read back under the wrong key or corrupted is detectable without
// the expected bytes at hand.
func FillValue(v []byte, idx uint64) {
	binary.LittleEndian.PutUint64(v, idx)
	binary.LittleEndian.PutUint32(v[8:], check(idx, len(v)))
	x := byte(idx*131 + 7)
	for j := 12; j < len(v); j++ {
		v[j] = x + byte(j)
	}
}

// CheckValue reports whether v is a well-formed sized value of key idx.
func CheckValue(v []byte, idx uint64) bool {
	if len(v) < minSizedValue || binary.LittleEndian.Uint64(v) != idx ||
		binary.LittleEndian.Uint32(v[8:]) != check(idx, len(v)) {
		return false
	}
	x := byte(idx*131 + 7)
	for j := 12; j < len(v); j++ {
		if v[j] != x+byte(j) {
			return false
		}
	}
	return true
}

func check(idx uint64, n int) uint32 {
	h := (idx ^ uint64(n)<<40) * 0x9E3779B97F4A7C15
	return uint32(h >> 32)
}

func (w *Workload) genOps(rng *rand.Rand) error {
	s := w.Spec
	n := s.Keys
	hotN := int(float64(n) * s.HotKeys)
	if hotN < 1 {
		hotN = 1
	}
	// perm scrambles ranks into key indexes so hot keys are spread over
	// the key space (and over every adapter's shards).
	var perm []uint32
	if s.Dist != Uniform {
		perm = make([]uint32, n)
		for i := range perm {
			perm[i] = uint32(i)
		}
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		w.hot = make([]uint64, (n+63)/64)
		for r := 0; r < hotN; r++ {
			k := perm[r]
			w.hot[k/64] |= 1 << (k % 64)
		}
	}
	var zipf *rand.Zipf
	if s.Dist == Zipf {
		zipf = rand.NewZipf(rng, s.ZipfS, 1, uint64(n-1))
	}
	w.Ops = make([]uint32, s.Ops)
	for i := range w.Ops {
		var k uint32
		switch s.Dist {
		case Uniform:
			k = uint32(rng.IntN(n))
		case HotCold:
			if rng.Float64() < s.HotAccess || hotN == n {
				k = perm[rng.IntN(hotN)]
			} else {
				k = perm[hotN+rng.IntN(n-hotN)]
			}
		case Zipf:
			k = perm[zipf.Uint64()]
		default:
			return fmt.Errorf("unknown distribution %q", s.Dist)
		}
		if s.Scenario == Mixed && rng.Float64() >= s.ReadRatio {
			k |= WriteBit
		}
		w.Ops[i] = k
	}
	return nil
}

// IsHot reports whether key index k is hot; always false for uniform.
func (w *Workload) IsHot(k uint32) bool {
	return w.hot != nil && w.hot[k/64]&(1<<(k%64)) != 0
}

// HasHot reports whether the distribution distinguishes hot keys.
func (w *Workload) HasHot() bool { return w.hot != nil }

// AvgEntryBytes is the mean key plus value size.
func (w *Workload) AvgEntryBytes() float64 {
	return float64(w.KeyBytes+w.ValueBytes) / float64(w.Spec.Keys)
}

// MaxValueSize is the largest value in the workload.
func (w *Workload) MaxValueSize() int {
	if w.Spec.ValueMax > 0 {
		return w.Spec.ValueMax
	}
	return len(w.Values[len(w.Values)-1])
}
