package workloads

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestReadVectorSpec(t *testing.T) {
	s, err := DefaultSpec(ReadVector)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != ReadVector || !s.WritesEveryKey() || !slices.Contains(Names(), ReadVector) {
		t.Fatalf("spec %+v: name %q", s, s.Name())
	}
	if _, err := DefaultSpec(ReadVector + "/zipf"); err == nil {
		t.Error("read-vector/zipf accepted")
	}
	// --ops does not apply (every key is read once); --value-size is an
	// error that names the flag.
	if _, err := Specs(ReadVector, Params{Keys: 100, Ops: 0, Seed: 1, HotKeys: 0.2, HotAccess: 0.8, ZipfS: 1.1, ReadRatio: 0.9, Capacity: 0.1}); err != nil {
		t.Fatal(err)
	}
	_, err = Specs(ReadVector, Params{Keys: 100, Seed: 1, ValueSize: "64", HotKeys: 0.2, HotAccess: 0.8, ZipfS: 1.1, ReadRatio: 0.9, Capacity: 0.1})
	if err == nil || !strings.Contains(err.Error(), "--value-size") {
		t.Fatalf("--value-size with read-vector: err = %v", err)
	}
}

func TestReadVectorData(t *testing.T) {
	w := mustGenerate(t, ReadVector, nil)
	n := w.Spec.Keys
	if w.MaxValueSize() != VectorLen*8 || w.ValueBytes != int64(n)*VectorLen*8 {
		t.Fatalf("MaxValueSize %d, ValueBytes %d", w.MaxValueSize(), w.ValueBytes)
	}
	for i := range uint32(n) {
		v := w.Vector(i)
		if s := SumVector(v); !VectorOK(v, s, i) || v[0] != float64(i) {
			t.Fatalf("vector %d = %v (sum %v, want %v)", i, v, s, VectorSum(i))
		}
	}
	// The check rejects another key's vector, a truncated, extended or
	// shifted one, and a permutation that moves the last element.
	v := slices.Clone(w.Vector(77))
	bad := map[string][]float64{
		"neighbour": w.Vector(78), "truncated": v[:VectorLen-1], "extended": append(slices.Clone(v), 0),
		"shifted":  append(slices.Clone(v[1:]), v[0]),
		"reversed": func() []float64 { r := slices.Clone(v); slices.Reverse(r); return r }(),
		"empty":    nil,
	}
	for name, xs := range bad {
		if VectorOK(xs, SumVector(xs), 77) {
			t.Errorf("%s vector accepted as key 77's", name)
		}
	}
	// The sum is exact at the largest key index.
	big := uint32(MaxKeys - 1)
	xs := make([]float64, VectorLen)
	for j := range xs {
		xs[j] = VectorElem(big, j)
	}
	if s := SumVector(xs); !VectorOK(xs, s, big) {
		t.Fatalf("key %d: sum %v, want %v exactly", big, s, VectorSum(big))
	}
	// Insert in key order, lookups a permutation; keys only.
	if w.InsertStream.ValRefs != nil || w.LookupStream.ValRefs != nil {
		t.Fatal("read-vector streams carry values")
	}
	seen := make([]bool, n)
	for j := range w.LookupStream.Len() {
		k := w.LookupStream.Ops[j].Key & KeyMask
		if string(w.LookupStream.KeyAt(j)) != string(w.Key(k)) || seen[k] {
			t.Fatalf("lookup %d: key %d", j, k)
		}
		seen[k] = true
		if w.InsertStream.Ops[j].Key != uint32(j) {
			t.Fatalf("insert %d is key %d", j, w.InsertStream.Ops[j].Key)
		}
	}
}

func TestProbeVectors(t *testing.T) {
	p := NewProbe(1)
	dst := make([]float64, 0, VectorLen)
	for _, i := range []uint64{0, 9, 123_456, MaxKeys - 1} {
		xs, ok, err := p.GetFloat64s(dst, AppendKey(nil, i))
		if err != nil || !ok || !VectorOK(xs, SumVector(xs), uint32(i)) {
			t.Fatalf("GetFloat64s(key_%d) = %v, %v, %v", i, xs, ok, err)
		}
	}
	if _, ok, err := p.GetFloat64s(dst, []byte("not-a-key")); ok || !errors.Is(err, ErrProbeKey) {
		t.Fatalf("GetFloat64s(not-a-key): ok=%v err=%v", ok, err)
	}
	key := AppendKey(nil, 4242)
	if n := testing.AllocsPerRun(100, func() { dst, _, _ = p.GetFloat64s(dst, key) }); n != 0 {
		t.Fatalf("GetFloat64s allocates %v times", n)
	}
}
