package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
)

// floorResult is a get-or-set and insert-lookup run with the null probe,
// an adapter within budget and one holding eight times its budget.
func floorResult() *Result {
	r := &Result{Schema: SchemaVersion, Kind: KindRun}
	add := func(adapter, workload string, phase Phase, ns float64, held *Held) {
		s := sample(ns, 900, 100)
		s.Held = held
		r.Measurements = append(r.Measurements, Measurement{Adapter: adapter, Workload: workload, Phase: phase, Procs: 1, Keys: 1000, Samples: []Sample{s, s}})
	}
	add(engine.ProbeName, "insert-lookup", PhaseInsert, 5, nil)
	add(engine.ProbeName, "insert-lookup", PhaseLookup, 8, nil)
	add("fast", "insert-lookup", PhaseInsert, 100, nil)
	add("fast", "insert-lookup", PhaseLookup, 200, nil)
	add(engine.ProbeName, "get-or-set/zipf", PhaseGetOrSet, 9, &Held{Entries: 0, Bytes: 0, BudgetEntries: 100, BudgetBytes: 1 << 20, Basis: "bytes"})
	add("honest", "get-or-set/zipf", PhaseGetOrSet, 300, &Held{Entries: 98, Bytes: 900 << 10, BudgetEntries: 100, BudgetBytes: 1 << 20, Basis: "bytes"})
	add("greedy", "get-or-set/zipf", PhaseGetOrSet, 250, &Held{Entries: 800, Bytes: 8 << 20, BudgetEntries: 100, BudgetBytes: 1 << 20, Basis: "bytes"})
	r.Measurements[len(r.Measurements)-1].Flags = []Flag{CountedFlag(FlagOverBudget, 800)}
	return r
}

func TestFloorAndHeldRendered(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, floorResult()); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	if strings.Contains(md, "| null") {
		t.Fatalf("the floor probe is ranked as a row:\n%s", md)
	}
	for _, want := range []string{
		"Harness floor", "lookup 8.00 ns (4.0% of the fastest, fast)", "insert 5.00 ns (5.0% of the fastest, fast)",
		"Held / budget", "88% (900 KiB / 1.00 MiB)", "800% (8.00 MiB / 1.00 MiB)", "⚠ over budget: holds 800% of it",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	// The over-budget adapter is listed after the honest one although
	// its hit ratio is the same: flagged rows are not ranked.
	if strings.Index(md, "| greedy") < strings.Index(md, "| honest") {
		t.Errorf("over-budget adapter ranked:\n%s", md)
	}
	// gobench carries the held ratio, and reading it back flags the
	// adapter again.
	buf.Reset()
	if err := WriteGoBench(&buf, floorResult()); err != nil {
		t.Fatal(err)
	}
	back, err := ReadGoBench(&buf, "floor.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range back.Measurements {
		_, over := m.Flag(FlagOverBudget)
		if over != (m.Adapter == "greedy") {
			t.Errorf("%s read back from gobench: over-budget flag %v", m.Adapter, over)
		}
	}
}
