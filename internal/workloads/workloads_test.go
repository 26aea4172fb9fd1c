package workloads

import (
	"bytes"
	"fmt"
	"math"
	"testing"
)

func mustGenerate(t *testing.T, name string, mod func(*Spec)) *Workload {
	t.Helper()
	s, err := DefaultSpec(name)
	if err != nil {
		t.Fatal(err)
	}
	s.Keys, s.Ops = 20_000, 50_000
	if mod != nil {
		mod(&s)
	}
	w, err := Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestInsertLookupShape(t *testing.T) {
	w := mustGenerate(t, InsertLookup, nil)
	if got := string(w.Keys[1234]); got != "key_1234" {
		t.Fatalf("key 1234 = %q", got)
	}
	if got := string(w.Values[1234]); got != "val_1234" {
		t.Fatalf("value 1234 = %q", got)
	}
	// Lookup is a permutation of every key, and not the identity.
	seen := make([]bool, len(w.Keys))
	inPlace := 0
	for i, k := range w.Lookup {
		if seen[k] {
			t.Fatalf("key %d looked up twice", k)
		}
		seen[k] = true
		if int(k) == i {
			inPlace++
		}
	}
	if inPlace > len(w.Lookup)/100 {
		t.Fatalf("lookup order barely shuffled: %d keys in place", inPlace)
	}
}

func TestDeterministic(t *testing.T) {
	for _, name := range []string{InsertLookup, "mixed/zipf", "get-or-set/hotcold"} {
		a := mustGenerate(t, name, nil)
		b := mustGenerate(t, name, nil)
		c := mustGenerate(t, name, func(s *Spec) { s.Seed = 2 })
		if fmt.Sprint(a.Lookup, a.Ops) != fmt.Sprint(b.Lookup, b.Ops) {
			t.Fatalf("%s: same seed, different access order", name)
		}
		for i := range a.Values {
			if !bytes.Equal(a.Values[i], b.Values[i]) {
				t.Fatalf("%s: same seed, different value %d", name, i)
			}
		}
		if fmt.Sprint(a.Lookup, a.Ops) == fmt.Sprint(c.Lookup, c.Ops) {
			t.Fatalf("%s: different seeds, same access order", name)
		}
	}
}

func TestHotColdShare(t *testing.T) {
	w := mustGenerate(t, "mixed/hotcold", nil)
	hot, writes := 0, 0
	for _, o := range w.Ops {
		if o&WriteBit != 0 {
			writes++
		}
		if w.IsHot(o &^ WriteBit) {
			hot++
		}
	}
	share := float64(hot) / float64(len(w.Ops))
	if math.Abs(share-0.8) > 0.02 {
		t.Fatalf("hot share %.3f, want 0.8", share)
	}
	if wr := float64(writes) / float64(len(w.Ops)); math.Abs(wr-0.1) > 0.02 {
		t.Fatalf("write share %.3f, want 0.1", wr)
	}
	// Hot keys are scrambled over the key space, not the first 20%.
	firstFifth := 0
	for k := 0; k < w.Spec.Keys/5; k++ {
		if w.IsHot(uint32(k)) {
			firstFifth++
		}
	}
	if firstFifth > w.Spec.Keys/5*30/100 {
		t.Fatalf("%d of the first fifth of keys are hot: not scrambled", firstFifth)
	}
}

func TestZipfSkew(t *testing.T) {
	w := mustGenerate(t, "get-or-set/zipf", nil)
	counts := map[uint32]int{}
	for _, o := range w.Ops {
		counts[o]++
	}
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	// With s=1.1 the most popular key takes several percent of accesses;
	// uniform over 20k keys would give a handful.
	if top < len(w.Ops)/100 {
		t.Fatalf("top key has %d of %d accesses: no skew", top, len(w.Ops))
	}
	for _, o := range w.Ops {
		if o&WriteBit != 0 {
			t.Fatal("get-or-set op carries a write bit")
		}
	}
}

func TestSizedValues(t *testing.T) {
	w := mustGenerate(t, "get-or-set/uniform", func(s *Spec) { s.ValueMin, s.ValueMax = 12, 200 })
	for i, v := range w.Values {
		if len(v) < 12 || len(v) > 200 {
			t.Fatalf("value %d has size %d", i, len(v))
		}
		if !CheckValue(v, uint64(i)) {
			t.Fatalf("value %d does not check", i)
		}
	}
	if CheckValue(w.Values[1], 2) {
		t.Fatal("value of key 1 accepted for key 2")
	}
	v := append([]byte(nil), w.Values[5]...)
	v[len(v)-1] ^= 1
	if CheckValue(v, 5) {
		t.Fatal("corrupted value accepted")
	}
}

func TestValidateNamesFlag(t *testing.T) {
	base, _ := DefaultSpec("mixed/uniform")
	base.Ops = 10
	cases := map[string]func(*Spec){
		"--keys":       func(s *Spec) { s.Keys = 0 },
		"--ops":        func(s *Spec) { s.Ops = -1 },
		"--hot-keys":   func(s *Spec) { s.HotKeys = 1 },
		"--hot-access": func(s *Spec) { s.HotAccess = 0 },
		"--zipf":       func(s *Spec) { s.ZipfS = 1 },
		"--read-ratio": func(s *Spec) { s.ReadRatio = 1.5 },
		"--capacity":   func(s *Spec) { s.Capacity = 0 },
		"--value-size": func(s *Spec) { s.ValueMin, s.ValueMax = 5, 3 },
	}
	for flag, mod := range cases {
		s := base
		mod(&s)
		err := s.Validate()
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(flag)) {
			t.Errorf("%s: got %v", flag, err)
		}
	}
	if _, err := DefaultSpec("nope"); err == nil {
		t.Error("unknown workload accepted")
	}
	if _, err := DefaultSpec("insert-lookup/zipf"); err == nil {
		t.Error("insert-lookup with a distribution accepted")
	}
}

func TestParseValueSize(t *testing.T) {
	for in, want := range map[string][2]int{"0": {0, 0}, "100": {100, 100}, "64-1024": {64, 1024}} {
		lo, hi, err := ParseValueSize(in)
		if err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("%q: %d %d %v", in, lo, hi, err)
		}
	}
	for _, bad := range []string{"x", "10x", "5-", "-3"} {
		if _, _, err := ParseValueSize(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
