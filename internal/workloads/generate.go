package workloads

import (
	"context"
	"fmt"
	"github.com/cachebench/cachebench/internal/machine"
	"math/rand/v2"
	"unsafe"
)

// WriteBit marks an operation in Workload.Ops (and Op.Key) as a write
// (mixed scenario); the low bits are the key index.
const WriteBit = 1 << 31

// minSizedValue is the smallest sized value (--value-size): the codec's
// head and tail tags plus the key index and version it carries for
// diagnostics.
const minSizedValue = diagValueSize

// Workload is a fully pre-generated workload. Keys, values and the
// per-operation streams live in a few large pointer-free arenas outside
// the Go heap (machine.Arena), so generating them leaves nothing for the
// garbage collector to scan while adapters are measured.
type Workload struct {
	Spec Spec
	// Codec writes and checks the values of Spec.Seed.
	Codec Codec
	// Insert is the order in which keys are inserted (insert-lookup) or
	// prefilled (mixed).
	Insert []uint32
	// Lookup is the shuffled lookup order (insert-lookup).
	Lookup []uint32
	// Ops is the access sequence of mixed and get-or-set: key indexes with
	// WriteBit set for writes.
	Ops []uint32
	// InsertStream, LookupStream and OpStream are Insert, Lookup and Ops
	// laid out in the order a worker consumes them (see Stream). The
	// streams of sequences a workload does not have are nil.
	InsertStream, LookupStream, OpStream *Stream
	// hot is a bitset of hot keys (hotcold, zipf); nil for uniform.
	hot []uint64
	// KeyBytes and ValueBytes are the total sizes, for memory budgets.
	KeyBytes, ValueBytes int64
	// StreamBytes is the memory the streams take.
	StreamBytes int64

	// keys holds every key back to back in index order; key i is
	// keys[keyOff[i]:keyOff[i+1]]. Likewise vals and valOff.
	keys, vals     []byte
	keyOff, valOff []uint64
	// vecs holds read-vector's vectors (vector.go); nil elsewhere, where
	// vals holds the values.
	vecs []float64
}

// Key returns key i; the slice aliases the workload's arena.
func (w *Workload) Key(i uint32) []byte {
	a, b := w.keyOff[i], w.keyOff[i+1]
	return w.keys[a:b:b]
}

// Value returns the value written under key i (version 0).
func (w *Workload) Value(i uint32) []byte {
	a, b := w.valOff[i], w.valOff[i+1]
	return w.vals[a:b:b]
}

// Generate builds the workload described by s. It is deterministic in s.
func Generate(s Spec) (*Workload, error) {
	return GenerateContext(context.Background(), s)
}

// GenerateContext is Generate, returning ctx's error within moments of
// ctx being cancelled: its loops over keys, values and operations look at
// ctx every ctxEvery iterations. The data it makes is Generate's, bit for
// bit (shuffle is math/rand/v2's Shuffle with a look at ctx).
func GenerateContext(ctx context.Context, s Spec) (*Workload, error) {
	if s.Scenario == Trace {
		return generateTrace(ctx, s)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	w := &Workload{Spec: s, Codec: NewCodec(s.Seed)}
	// Separate streams per purpose, so changing (say) the op count does not
	// change the values.
	rngValues := rand.New(rand.NewPCG(s.Seed, 1))
	rngOrder := rand.New(rand.NewPCG(s.Seed, 2))
	rngOps := rand.New(rand.NewPCG(s.Seed, 3))

	if err := w.genKeys(ctx); err != nil {
		return nil, err
	}
	span := s.ValueMax - s.ValueMin + 1
	size := func(i int) int {
		if s.ValueMax > 0 {
			return s.ValueMin + rngValues.IntN(span)
		}
		return ShortValueSize(uint64(i))
	}
	if s.Scenario == ReadVector {
		if err := w.genVectors(ctx); err != nil {
			return nil, err
		}
	} else if err := w.genValues(ctx, size); err != nil {
		return nil, err
	}

	n := s.Keys
	w.Insert = make([]uint32, n)
	for i := range w.Insert {
		w.Insert[i] = uint32(i)
	}
	var err error
	switch s.Scenario {
	case InsertLookup, ReadVector:
		// read-vector's streams carry keys only: its loops find a key's
		// vector by the key index (Workload.Vectors), in insert order a
		// sequential read.
		writes := s.Scenario == InsertLookup
		w.Lookup = make([]uint32, n)
		copy(w.Lookup, w.Insert)
		if err := shuffle(ctx, rngOrder, n, func(i, j int) { w.Lookup[i], w.Lookup[j] = w.Lookup[j], w.Lookup[i] }); err != nil {
			return nil, err
		}
		if w.InsertStream, err = w.NewStream(w.Insert, writes); err != nil {
			return nil, err
		}
		if w.LookupStream, err = w.NewStream(w.Lookup, false); err != nil {
			return nil, err
		}
	case Mixed, GetOrSet:
		// Prefill (mixed) in shuffled order so that insertion order carries
		// no locality the lookups could exploit.
		if err := shuffle(ctx, rngOrder, n, func(i, j int) { w.Insert[i], w.Insert[j] = w.Insert[j], w.Insert[i] }); err != nil {
			return nil, err
		}
		if err := w.genOps(ctx, rngOps); err != nil {
			return nil, err
		}
		if s.Scenario == Mixed {
			if w.InsertStream, err = w.NewStream(w.Insert, true); err != nil {
				return nil, err
			}
		}
		if w.OpStream, err = w.NewStream(w.Ops, true); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown scenario %q", s.Scenario)
	}
	return w, ctx.Err()
}

// ctxEvery is how many iterations a generation loop runs between two
// looks at its context: well under a millisecond of work.
const ctxEvery = 1 << 16

// stopped returns ctx's error, wrapped with what was being generated, at
// every ctxEvery-th i.
func stopped(ctx context.Context, i int, what string) error {
	if i%ctxEvery != 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("generating %s: %w", what, err)
	}
	return nil
}

// shuffle is rng.Shuffle(n, swap), the same Fisher-Yates draws in the
// same order (so the same permutation), stopping once ctx is cancelled.
func shuffle(ctx context.Context, rng *rand.Rand, n int, swap func(i, j int)) error {
	for i := n - 1; i > 0; i-- {
		if err := stopped(ctx, i, "a shuffled order"); err != nil {
			return err
		}
		swap(i, int(rng.Uint64N(uint64(i+1))))
	}
	return nil
}

// arenaSlice returns n zeroed elements of the pointer-free type T in an
// arena of their own.
func arenaSlice[T uint32 | uint64 | float64 | Op](n int) ([]T, error) {
	if n == 0 {
		return nil, nil
	}
	var zero T
	b, err := machine.Arena(n * int(unsafe.Sizeof(zero)))
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n), nil
}

func (w *Workload) genKeys(ctx context.Context) error {
	n := w.Spec.Keys
	var err error
	if w.keyOff, err = arenaSlice[uint64](n + 1); err != nil {
		return err
	}
	size := 0
	for i := 0; i < n; i++ {
		if err := stopped(ctx, i, "keys"); err != nil {
			return err
		}
		size += KeySize(uint64(i))
		w.keyOff[i+1] = uint64(size)
	}
	if w.keys, err = machine.Arena(size); err != nil {
		return err
	}
	arena := w.keys[:0]
	for i := 0; i < n; i++ {
		if err := stopped(ctx, i, "keys"); err != nil {
			return err
		}
		arena = AppendKey(arena, uint64(i))
	}
	w.KeyBytes = int64(size)
	return nil
}

// genValues writes every key's version-0 value into the value arena, key
// i's of size(i) bytes (called once per key, in order): the default short
// values (ShortValueSize), sizes drawn uniformly from [ValueMin, ValueMax],
// or a trace's.
func (w *Workload) genValues(ctx context.Context, size func(i int) int) error {
	n := w.Spec.Keys
	var err error
	if w.valOff, err = arenaSlice[uint64](n + 1); err != nil {
		return err
	}
	total := 0
	for i := 0; i < n; i++ {
		size := size(i)
		total += size
		w.valOff[i+1] = uint64(total)
	}
	if w.vals, err = machine.Arena(total); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := stopped(ctx, i, "values"); err != nil {
			return err
		}
		w.Codec.PutValue(w.vals[w.valOff[i]:w.valOff[i+1]], uint64(i), 0)
	}
	w.ValueBytes = int64(total)
	return nil
}

func (w *Workload) genOps(ctx context.Context, rng *rand.Rand) error {
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
		if err := shuffle(ctx, rng, n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] }); err != nil {
			return err
		}
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
		if err := stopped(ctx, i, "operations"); err != nil {
			return err
		}
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

// MaxValueSize is the largest value in the workload (read-vector: the
// bytes of a vector).
func (w *Workload) MaxValueSize() int {
	if w.Spec.Scenario == ReadVector {
		return VectorLen * 8
	}
	if w.Spec.ValueMax > 0 {
		return w.Spec.ValueMax
	}
	return ShortValueSize(uint64(w.Spec.Keys - 1))
}
