package adapters_test

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
)

// vectorsOnly reports whether f's adapters refuse bytes (Set fails with
// errors.ErrUnsupported), so that the byte suite does not apply to them.
// Such an adapter must hold vectors instead.
func vectorsOnly(t *testing.T, f engine.Factory) bool {
	t.Helper()
	a := newAdapter(t, f, testOptions(t))
	defer closeAdapter(t, a)
	err := a.Set([]byte("k"), []byte("v"))
	if !errors.Is(err, errors.ErrUnsupported) {
		return false
	}
	if _, ok := a.(engine.Float64sStore); !ok {
		t.Errorf("Set of bytes is unsupported, yet the adapter holds no vectors either (engine.Float64sStore)")
	}
	return true
}

// testVector is the vector of key i: its length (0 to 40) and elements
// depend on i, and they include the values a text form could lose:
// negative zero, subnormals, the extremes, infinities, and fractions
// without a short decimal form.
func testVector(i int) []float64 {
	specials := []float64{math.Copysign(0, -1), 5e-324, math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1), 0.1, 1.0 / 3, -2.5e-7, 1e21}
	v := make([]float64, i%41)
	for j := range v {
		v[j] = float64(i) + float64(j)/8
		if (i+j)%7 == 0 {
			v[j] = specials[(i+j)%len(specials)]
		}
	}
	return v
}

// sameVector compares bit for bit, so that -0 and 0 differ.
func sameVector(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestFloat64sStores runs every adapter that holds float64 vectors
// (engine.Float64sStore) through the contract the read-vector workload
// relies on: every vector read back exactly, dst used as scratch only,
// a missing key, concurrent readers, and a value that is not a vector
// reported as an error.
func TestFloat64sStores(t *testing.T) {
	stores := 0
	for _, f := range engine.All() {
		a, err := f.New(testOptions(t))
		if err != nil {
			continue // network adapters without servers: not vector stores
		}
		_, ok := a.(engine.Float64sStore)
		a.Close()
		if !ok {
			continue
		}
		stores++
		t.Run(f.Name, func(t *testing.T) { testFloat64s(t, f) })
	}
	if stores < 4 {
		t.Errorf("%d float64 vector stores registered, want at least the four of group vectors", stores)
	}
}

func testFloat64s(t *testing.T, f engine.Factory) {
	a := newAdapter(t, f, testOptions(t))
	defer closeAdapter(t, a)
	fs := a.(engine.Float64sStore)
	const n = 2000
	reused := make([]float64, 64)
	for i := range n {
		v := append(reused[:0], testVector(i)...)
		if err := fs.SetFloat64s(testKey(i), v); err != nil {
			t.Fatalf("SetFloat64s(%s): %v", testKey(i), err)
		}
		for j := range v {
			v[j] = math.NaN() // the caller reuses its buffer: the store must have copied
		}
	}
	// A value that is not a vector: bytes, where the adapter takes them.
	notVector := []byte("not,a,vector")
	bytesOK := a.Set([]byte("bytes"), notVector) == nil
	settle(t, a)

	dst := make([]float64, 0, 64)
	for i := range n {
		xs, ok, err := fs.GetFloat64s(dst, testKey(i))
		if err != nil || !ok || !sameVector(xs, testVector(i)) {
			t.Fatalf("GetFloat64s(%s) = %v, %v, %v; want %v", testKey(i), xs, ok, err, testVector(i))
		}
	}
	// dst with stale contents and no room: still exactly the vector.
	stale := []float64{7, 7, 7}
	xs, ok, err := fs.GetFloat64s(stale, testKey(39))
	if err != nil || !ok || !sameVector(xs, testVector(39)) {
		t.Errorf("GetFloat64s into a short, non-empty dst = %v, %v, %v; want %v", xs, ok, err, testVector(39))
	}
	// A read allocates nothing, parsing included: the workload's
	// allocs/read column compares representations, not garbage.
	k := testKey(32)
	if allocs := testing.AllocsPerRun(200, func() { _, _, _ = fs.GetFloat64s(dst, k) }); allocs != 0 {
		t.Errorf("GetFloat64s allocates %v times per read, want 0", allocs)
	}
	xs, ok, err = fs.GetFloat64s(dst, []byte("no-such-key"))
	if ok || err != nil || len(xs) != 0 {
		t.Errorf("GetFloat64s(missing) = %v, %v, %v; want empty, false, nil", xs, ok, err)
	}
	if bytesOK {
		xs, _, err = fs.GetFloat64s(dst, []byte("bytes"))
		if err == nil {
			t.Errorf("GetFloat64s of the bytes %q = %v, nil error; want an error, never a reinterpretation", notVector, xs)
		}
	}
	// Concurrent readers, each with its own dst.
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]float64, 0, 64)
			for i := r; i < n; i += readers {
				xs, ok, err := fs.GetFloat64s(buf, testKey(i))
				if err != nil || !ok || !sameVector(xs, testVector(i)) {
					errs <- fmt.Errorf("reader %d: GetFloat64s(%s) = %v, %v, %v", r, testKey(i), xs, ok, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
