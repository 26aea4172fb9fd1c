package conformance

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
)

// vectorsOnly reports whether the adapter refuses bytes because it holds
// float64 vectors only: Set fails with errors.ErrUnsupported and the
// adapter is an engine.Float64sStore. The byte checks do not apply to it.
// An adapter that refuses bytes and holds no vectors either fails.
func (s suite) vectorsOnly(t *testing.T) bool {
	t.Helper()
	a := s.newAdapter(t, s.options(t))
	defer closeAdapter(t, a)
	if _, ok := a.(engine.Float64sStore); !ok {
		return false
	}
	err := a.Set([]byte("k"), []byte("v"))
	return errors.Is(err, errors.ErrUnsupported)
}

// testVector is the vector of key i: its length (0 to 40) and elements
// depend on i, and they include what a text form could lose: negative
// zero, a subnormal, the extremes, infinities, and fractions without a
// short decimal form.
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

// float64s checks an engine.Float64sStore against the contract the
// read-vector workload relies on: every vector read back bit for bit,
// the caller's buffers not kept, dst used as scratch only, a missing key,
// concurrent readers, no allocation per read, and a value that is not a
// vector reported as an error, never reinterpreted.
func (s suite) float64s(t *testing.T) {
	a := s.newAdapter(t, s.options(t))
	defer closeAdapter(t, a)
	fs, ok := a.(engine.Float64sStore)
	if !ok {
		t.Skip("not a Float64sStore")
	}
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
	// A read allocates nothing, parsing included: read-vector's
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
