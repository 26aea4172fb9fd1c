package mmapstore

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"
)

// goValue decodes v into the Go value it was built from, for comparison.
func goValue(t *testing.T, v Value) any {
	t.Helper()
	var x any
	var err error
	switch v.typ {
	case TypeBytes:
		x = string(v.b)
	case TypeString:
		var b []byte
		b, err = v.Text()
		x = string(b)
	case TypeInt64:
		x, err = v.Int64()
	case TypeFloat64:
		x, err = v.Float64()
	case TypeBool:
		x, err = v.Bool()
	case TypeInt64s:
		var xs []int64
		xs, err = v.Int64s()
		x = append([]int64{}, xs...)
	case TypeFloat64s:
		var xs []float64
		xs, err = v.Float64s()
		x = append([]float64{}, xs...)
	case TypeStrings:
		x, err = v.Strings()
	}
	if err != nil {
		t.Fatalf("%v value %q: %v", v.typ, v.b, err)
	}
	return x
}

// TestTypedRoundTrip builds every value type (inline and out of line,
// with and without dedup) and reads each back through Lookup, the typed
// getters, LookupChecked, GetBatch and All: each returns the value it was
// built with, of its type; every getter of another type fails with
// ErrType; Verify passes and Inspect counts the types.
func TestTypedRoundTrip(t *testing.T) {
	const n = 3000
	for _, dedup := range []bool{false, true} {
		t.Run(fmt.Sprintf("dedup=%v", dedup), func(t *testing.T) {
			s := mustOpen(t, buildTyped(t, t.TempDir(), "t.cache", typedPairs(n), BuildOptions{Dedup: dedup}))
			var mix TypeMix
			var keys [][]byte
			for i := range n {
				key := fmt.Appendf(nil, "key_%d", i)
				keys = append(keys, key)
				want := typedValue(i)
				mix[want.typ]++
				v, ok := s.Lookup(key)
				if !ok || v.typ != want.typ || !bytes.Equal(v.b, want.b) {
					t.Fatalf("Lookup(%s) = %v %q, %v; want %v %q", key, v.typ, v.b, ok, want.typ, want.b)
				}
				if got, w := goValue(t, v), goValue(t, want); !reflect.DeepEqual(got, w) {
					t.Fatalf("%s: %v, want %v", key, got, w)
				}
				for _, ty := range Types()[1:] {
					x, found, err := getAs(s, key, ty)
					if !found {
						t.Fatalf("Get%v(%s) missed", ty, key)
					}
					if ty != want.typ {
						var te *TypeError
						if !errors.Is(err, ErrType) || !errors.As(err, &te) || te.Want != ty || te.Got != want.typ || !bytes.Contains([]byte(err.Error()), key) {
							t.Fatalf("Get%v(%s) of a %v: %v, %v", ty, key, want.typ, x, err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("Get%v(%s): %v", ty, key, err)
					}
					if w := goValue(t, want); !reflect.DeepEqual(x, w) && fmt.Sprint(x) != fmt.Sprint(w) {
						t.Fatalf("Get%v(%s) = %v, want %v", ty, key, x, w)
					}
				}
				cv, ok, err := s.LookupChecked(key)
				if err != nil || !ok || cv.typ != want.typ || !bytes.Equal(cv.b, want.b) {
					t.Fatalf("LookupChecked(%s) = %v %q, %v, %v", key, cv.typ, cv.b, ok, err)
				}
			}
			if _, found, err := s.GetFloat64s([]byte("absent")); found || err != nil {
				t.Fatalf("absent key: %v, %v", found, err)
			}
			s.GetBatch(keys, func(i int, v []byte, ok bool) {
				if want := typedValue(i); !ok || !bytes.Equal(v, want.b) {
					t.Fatalf("GetBatch(%s) = %q, %v", keys[i], v, ok)
				}
			})
			seen := 0
			for k, v := range s.All() {
				var i int
				fmt.Sscanf(string(k), "key_%d", &i)
				if want := typedValue(i); v.typ != want.typ || !bytes.Equal(v.b, want.b) {
					t.Fatalf("All: %s = %v %q", k, v.typ, v.b)
				}
				seen++
			}
			if seen != n {
				t.Fatalf("All yielded %d entries", seen)
			}
			if err := s.Verify(); err != nil {
				t.Fatal(err)
			}
			st, err := s.Inspect()
			if err != nil {
				t.Fatal(err)
			}
			if st.Types != mix {
				t.Fatalf("type mix %v, want %v", st.Types, mix)
			}
			if dedup && st.DedupRefs == 0 {
				t.Fatal("no dedup references: the shared []float64 values were stored twice")
			}
		})
	}
}

// TestTypedReadsAllocateNothing: scalars and numeric lists are read
// without an allocation (testing.AllocsPerRun), the lists as slices over
// the mapping.
func TestTypedReadsAllocateNothing(t *testing.T) {
	if !inPlace {
		t.Skip("big-endian host: numeric lists are decoded into new slices")
	}
	seq := func(yield func([]byte, Value) bool) {
		_ = yield([]byte("i"), Int64Value(-3)) &&
			yield([]byte("f"), Float64Value(0.5)) &&
			yield([]byte("b"), BoolValue(true)) &&
			yield([]byte("is"), Int64sValue([]int64{1, 2, 3})) &&
			yield([]byte("fs"), Float64sValue(make([]float64, 32))) &&
			yield([]byte("s"), StringValue("text"))
	}
	s := mustOpen(t, buildTyped(t, t.TempDir(), "a.cache", seq, BuildOptions{}))
	var sink float64
	for name, read := range map[string]func(){
		"GetInt64":   func() { x, _, _ := s.GetInt64([]byte("i")); sink += float64(x) },
		"GetFloat64": func() { x, _, _ := s.GetFloat64([]byte("f")); sink += x },
		"GetBool": func() {
			if x, _, _ := s.GetBool([]byte("b")); x {
				sink++
			}
		},
		"GetInt64s":   func() { xs, _, _ := s.GetInt64s([]byte("is")); sink += float64(xs[2]) },
		"GetFloat64s": func() { xs, _, _ := s.GetFloat64s([]byte("fs")); sink += xs[31] },
		"Lookup+Text": func() { v, _ := s.Lookup([]byte("s")); b, _ := v.Text(); sink += float64(len(b)) },
		"miss":        func() { _, ok, _ := s.GetFloat64s([]byte("absent")); _ = ok },
	} {
		if a := testing.AllocsPerRun(200, read); a != 0 {
			t.Errorf("%s: %v allocations per read", name, a)
		}
	}
	xs, _, _ := s.GetFloat64s([]byte("fs"))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(xs)))
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(s.data)))
	if p < lo || p >= lo+uintptr(len(s.data)) || p%8 != 0 {
		t.Fatalf("[]float64 at %#x is not an aligned slice of the mapping [%#x, +%d)", p, lo, len(s.data))
	}
	_ = sink
}

// TestNumericListsDecoded runs the path big-endian hosts take (and any
// misaligned payload): a new slice with the same numbers.
func TestNumericListsDecoded(t *testing.T) {
	defer func(old bool) { inPlace = old }(inPlace)
	fs := []float64{1.5, math.Inf(-1), math.Copysign(0, -1), 1e-310}
	is := []int64{math.MinInt64, -1, 0, math.MaxInt64}
	for _, mode := range []bool{true, false} {
		inPlace = mode
		gotF, err := Float64sValue(fs).Float64s()
		if err != nil || !reflect.DeepEqual(gotF, fs) {
			t.Fatalf("inPlace=%v: %v, %v", mode, gotF, err)
		}
		gotI, err := Int64sValue(is).Int64s()
		if err != nil || !reflect.DeepEqual(gotI, is) {
			t.Fatalf("inPlace=%v: %v, %v", mode, gotI, err)
		}
	}
	// A payload one byte off its alignment is decoded, not cast.
	inPlace = true
	b := make([]byte, 17)
	copy(b[1:], Float64sValue([]float64{2, 3}).b)
	got, err := Value{TypeFloat64s, b[1:]}.Float64s()
	if err != nil || !reflect.DeepEqual(got, []float64{2, 3}) {
		t.Fatalf("misaligned: %v, %v", got, err)
	}
	if xs, err := Float64sValue(nil).Float64s(); err != nil || xs == nil || len(xs) != 0 {
		t.Fatalf("empty list: %v, %v", xs, err)
	}
}

// TestAddValueRejects: a value its type cannot hold is refused with
// ErrValue, nothing is added, and the build goes on.
func TestAddValueRejects(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.cache")
	b, err := Create(p, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []Value{
		{TypeString, []byte{0xff}},
		{TypeBool, []byte{2}},
		{TypeInt64, make([]byte, 7)},
		{TypeFloat64s, make([]byte, 12)},
		{TypeStrings, []byte{3, 1, 'a'}},
		{TypeStrings, StringsValue([]string{"ok", "\xff"}).b},
		{numTypes, nil},
	} {
		if err := b.AddValue([]byte("k"), v); !errors.Is(err, ErrValue) {
			t.Errorf("%v %q: %v", v.typ, v.b, err)
		}
	}
	if err := b.AddValue([]byte("k"), Int64Value(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if s := mustOpen(t, p); s.Len() != 1 {
		t.Fatalf("%d keys", s.Len())
	}
}

// TestTypeByteFlip flips the type byte of an inline int64 entry to
// float64 (the same size) and to bool (another size), and the length of
// a []float64 record: the checked lookup reports the checksum mismatch;
// the unchecked one returns what the bytes say, but never a value whose
// size its type cannot have (the bool flip is a miss), and never reads
// it as a type other than the one stored.
func TestTypeByteFlip(t *testing.T) {
	seq := func(yield func([]byte, Value) bool) {
		_ = yield([]byte("n"), Int64Value(42)) && yield([]byte("v"), Float64sValue([]float64{1, 2, 3}))
	}
	data := readFile(t, buildTyped(t, t.TempDir(), "f.cache", seq, BuildOptions{Seed: 1}))
	s := memStore(t, data)
	v, _, _, _ := s.find([]byte("n"), s.hash([]byte("n")))
	typeAt := uintptr(unsafe.Pointer(unsafe.SliceData(v.b))) - uintptr(unsafe.Pointer(unsafe.SliceData(data))) - 2 // type byte, key "n", value
	if data[typeAt] != byte(TypeInt64) {
		t.Fatalf("test setup: byte %d is %d, not the int64 type byte", typeAt, data[typeAt])
	}
	for _, c := range []struct {
		to    Type
		found bool
	}{{TypeFloat64, true}, {TypeBool, false}, {TypeInt64s, false}, {numTypes, false}} {
		b := bytes.Clone(data)
		b[typeAt] = byte(c.to)
		s := memStore(t, b)
		v, ok := s.Lookup([]byte("n"))
		if ok != c.found || (ok && v.typ != c.to) {
			t.Errorf("type byte set to %v: Lookup = %v, %v", c.to, v.typ, ok)
		}
		if _, _, err := s.GetInt64([]byte("n")); ok && !errors.Is(err, ErrType) {
			t.Errorf("type byte set to %v: GetInt64 = %v, want ErrType", c.to, err)
		}
		if _, _, err := s.LookupChecked([]byte("n")); !errors.Is(err, ErrChecksum) {
			t.Errorf("type byte set to %v: LookupChecked = %v, want ErrChecksum", c.to, err)
		}
		if err := s.Verify(); err == nil {
			t.Errorf("type byte set to %v: Verify passed", c.to)
		}
	}
	// The []float64 record's value length (24 bytes) changed to 20: no
	// longer a multiple of 8, so the record does not decode.
	v, _ = s.Lookup([]byte("v"))
	valOff := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(v.b))) - uintptr(unsafe.Pointer(unsafe.SliceData(data))))
	r, ok := decodeRecord(s.recs, HeaderSize, false)
	if !ok || r.valOff != valOff {
		t.Fatalf("test setup: the []float64 record is not the first one")
	}
	b := bytes.Clone(data)
	b[HeaderSize+1] = 20<<valLenShift | valTypedBit
	s2 := memStore(t, b)
	if v, ok := s2.Lookup([]byte("v")); ok {
		t.Errorf("length flipped: Lookup = %v %q", v.typ, v.b)
	}
	if _, _, err := s2.LookupChecked([]byte("v")); !errors.Is(err, ErrChecksum) {
		t.Errorf("length flipped: LookupChecked = %v", err)
	}
}
