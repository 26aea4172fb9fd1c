package workloads

import "testing"

func TestMemoryBudget(t *testing.T) {
	// gc-pause's default: 20M entries × (14 + 100 + 48) × 2, rounded up to a MiB.
	got := MemoryBudget(20_000_000, 114, InsertHeadroom)
	want := int64(20_000_000 * 162 * 2)
	if got < want || got-want >= 1<<20 || got%(1<<20) != 0 {
		t.Fatalf("MemoryBudget = %d, want %d rounded up to a MiB", got, want)
	}
	if got := MemoryBudget(1, 1, 1); got != 1<<20 {
		t.Fatalf("MemoryBudget of one small entry = %d, want one MiB", got)
	}
}

func TestWorkloadBudget(t *testing.T) {
	s, err := DefaultSpec("get-or-set/uniform")
	if err != nil {
		t.Fatal(err)
	}
	s.Keys, s.Ops, s.Capacity, s.ValueMin, s.ValueMax = 5000, 5000, 0.1, 64, 64
	w, err := Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	o := w.Budget()
	if o.Entries != 500 || o.MemoryBytes != MemoryBudget(500, w.AvgEntryBytes(), 1) || o.MaxValueSize != 64 {
		t.Fatalf("get-or-set budget %+v", o)
	}
	s, _ = DefaultSpec(InsertLookup)
	s.Keys = 5000
	if w, err = Generate(s); err != nil {
		t.Fatal(err)
	}
	if o := w.Budget(); o.Entries != 5000 || o.MemoryBytes != MemoryBudget(5000, w.AvgEntryBytes(), InsertHeadroom) {
		t.Fatalf("insert-lookup budget %+v", o)
	}
}
