package workloads

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/workloads/trace"
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
	if got := string(w.Key(1234)); got != "key_1234" {
		t.Fatalf("key 1234 = %q", got)
	}
	// Short values: the length of "val_%d", at least 8, self-checking.
	for _, i := range []uint32{0, 7, 999, 1234, 19_999} {
		v := w.Value(i)
		if len(v) != ShortValueSize(uint64(i)) || !w.Codec.CheckFull(v, uint64(i), 0) {
			t.Fatalf("value %d = %x (len %d)", i, v, len(v))
		}
	}
	if w.MaxValueSize() != len("val_19999") {
		t.Fatalf("MaxValueSize = %d", w.MaxValueSize())
	}
	// Lookup is a permutation of every key, and not the identity.
	seen := make([]bool, w.Spec.Keys)
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
		for i := uint32(0); i < uint32(a.Spec.Keys); i++ {
			if !bytes.Equal(a.Value(i), b.Value(i)) {
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
	w := mustGenerate(t, "get-or-set/uniform", func(s *Spec) { s.ValueMin, s.ValueMax = 16, 200 })
	sizes := map[int]bool{}
	for i := uint32(0); i < uint32(w.Spec.Keys); i++ {
		v := w.Value(i)
		if len(v) < 16 || len(v) > 200 {
			t.Fatalf("value %d has size %d", i, len(v))
		}
		if !w.Codec.CheckFull(v, uint64(i), 0) {
			t.Fatalf("value %d does not check", i)
		}
		sizes[len(v)] = true
	}
	if len(sizes) < 150 {
		t.Fatalf("only %d distinct sizes in 16..200", len(sizes))
	}
	if w.Codec.CheckIndex(w.Value(1), 2, 0) {
		t.Fatal("value of key 1 accepted for key 2")
	}
	if err := (Spec{Scenario: GetOrSet, Dist: Uniform, Keys: 10, Ops: 10, HotKeys: .2, HotAccess: .8, ZipfS: 1.1, Capacity: .1, ValueMin: 12, ValueMax: 20}).Validate(); err == nil {
		t.Fatal("--value-size minimum below 16 accepted")
	}
}

// TestStreams: each stream replays its sequence exactly (keys, values,
// write and hot bits), a split into workers covers it without gaps, and
// sized values are referenced, not copied.
func TestStreams(t *testing.T) {
	for _, name := range []string{InsertLookup, "mixed/hotcold", "get-or-set/zipf"} {
		w := mustGenerate(t, name, nil)
		check := func(what string, st *Stream, seq []uint32, writes bool) {
			t.Helper()
			if st == nil || st.Len() != len(seq) {
				t.Fatalf("%s %s: stream missing or of the wrong length", name, what)
			}
			for _, parts := range []int{1, 3} {
				j := 0
				for _, sub := range st.Split(parts) {
					for p := 0; p < sub.Len(); p, j = p+1, j+1 {
						k := seq[j] &^ WriteBit
						op := sub.Ops[p]
						if op.Key&KeyMask != k || op.Key&WriteBit != seq[j]&WriteBit || (op.Key&HotBit != 0) != w.IsHot(k) {
							t.Fatalf("%s %s op %d: key %#x, want %#x", name, what, j, op.Key, seq[j])
						}
						if !bytes.Equal(sub.KeyAt(p), w.Key(k)) {
							t.Fatalf("%s %s op %d: key %q, want %q", name, what, j, sub.KeyAt(p), w.Key(k))
						}
						if writes && !bytes.Equal(sub.ValueAt(p), w.Value(k)) {
							t.Fatalf("%s %s op %d: wrong value", name, what, j)
						}
					}
				}
				if j != len(seq) {
					t.Fatalf("%s %s: split into %d covers %d of %d ops", name, what, parts, j, len(seq))
				}
			}
			if !writes && st.ValRefs != nil {
				t.Fatalf("%s %s: a read-only stream carries values", name, what)
			}
			// Keys are contiguous in consumption order.
			if int(st.Ops[st.Len()-1].KeyEnd) != len(st.Keys) {
				t.Fatalf("%s %s: key bytes not back to back", name, what)
			}
		}
		switch w.Spec.Scenario {
		case InsertLookup:
			check("insert", w.InsertStream, w.Insert, true)
			check("lookup", w.LookupStream, w.Lookup, false)
		case Mixed:
			check("prefill", w.InsertStream, w.Insert, true)
			check("ops", w.OpStream, w.Ops, true)
		case GetOrSet:
			check("ops", w.OpStream, w.Ops, true)
			// Sized values point into the one value arena.
			v := w.OpStream.ValueAt(0)
			k := w.Ops[0]
			if &v[0] != &w.Value(k)[0] {
				t.Fatalf("%s: a sized value was copied into the stream", name)
			}
		}
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

// TestWritesEveryKey: the workloads whose misses are lost entries are
// known from the spec, whatever the name (aliases, presets) looks like.
func TestWritesEveryKey(t *testing.T) {
	for name, want := range map[string]bool{
		InsertLookup: true, "mixed/zipf": true, "hot-cold": true, Zipf: true, ReadVector: true,
		"get-or-set/zipf": false, GetOrSet: false, GetOrSet + "/" + UMem: false,
	} {
		s, err := DefaultSpec(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.WritesEveryKey(); got != want {
			t.Errorf("%s: WritesEveryKey = %v, want %v", name, got, want)
		}
	}
}

// A trace workload: keys in order of first request, each valued at its
// first request's size within [16 B, 1 MiB], the requests in order.
func TestTraceWorkload(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.trace")
	os.WriteFile(p, []byte("1 50 100\n2 7 0\n3 50 300\n4 9 5000000\n5 7 20\n"), 0o644)
	specs, err := Specs("trace:adapt_size:"+p, Params{Seed: 3, Capacity: 0.5, Keys: 99, ValueSize: "64"})
	if err != nil {
		t.Fatal(err)
	}
	s := specs[0]
	if s.Name() != "trace:a.trace" || s.Scenario != Trace {
		t.Fatalf("spec %+v", s)
	}
	w, err := Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	if w.Spec.Keys != 3 || w.Spec.Ops != 5 {
		t.Fatalf("keys %d ops %d", w.Spec.Keys, w.Spec.Ops)
	}
	wantOps := []uint32{0, 1, 0, 2, 1}
	for j, k := range wantOps {
		if w.OpStream.Ops[j].Key != k || string(w.OpStream.KeyAt(j)) != fmt.Sprintf("key_%d", k) {
			t.Errorf("op %d: key %d %q, want %d", j, w.OpStream.Ops[j].Key, w.OpStream.KeyAt(j), k)
		}
	}
	for k, size := range []int{100, 16, MaxTraceValue} {
		if v := w.Value(uint32(k)); len(v) != size || !w.Codec.CheckIndex(v, uint64(k), 0) {
			t.Errorf("value %d: %d bytes, want %d", k, len(v), size)
		}
	}
	// 2 entries of the mean key and value plus the overhead, not a MiB.
	if b := w.Budget(); b.Entries != 2 || b.MaxValueSize != MaxTraceValue || b.MemoryBytes != int64(math.Ceil(2*(w.AvgEntryBytes()+EntryOverhead))) {
		t.Errorf("budget %+v", b)
	}
	for _, bad := range []string{"trace:", "trace:lirs:" + filepath.Join(dir, "missing")} {
		specs, err := Specs(bad, Params{Seed: 1, Capacity: 0.1})
		if err == nil {
			_, err = Generate(specs[0])
		}
		if err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	// A file that cannot be read is the spec's error, not Generate's:
	// the command checks its flags before it measures the machine.
	for _, bad := range []string{filepath.Join(dir, "missing.oracleGeneral"), "oracle:" + dir} {
		if _, err := Specs("trace:"+bad, Params{Seed: 1, Capacity: 0.1}); err == nil || !strings.Contains(err.Error(), "--workload trace:"+bad+": open trace") {
			t.Errorf("Specs(trace:%s): %v, want the file refused", bad, err)
		}
	}
	os.WriteFile(p, []byte("1 50 100\n2 x 3\n"), 0o644)
	specs, _ = Specs("trace:adaptsize:"+p, Params{Seed: 1, Capacity: 0.1})
	var re *trace.RecordError
	if _, err := Generate(specs[0]); !errors.As(err, &re) || re.Record != 2 {
		t.Errorf("malformed record: %v", err)
	}
}
