package compare

import (
	"testing"

	"github.com/cachebench/cachebench/internal/report"
)

// TestUnboundedIsNoNewFlag: map marked unbounded in a new run, where an
// older run flagged it over budget, is not a new problem; a new
// over-budget flag still is.
func TestUnboundedIsNoNewFlag(t *testing.T) {
	k := Key{Adapter: "map", Workload: "get-or-set/zipf", Phase: report.PhaseGetOrSet, Procs: 1, Keys: 1000}
	old := map[Key]report.Measurement{k: {Flags: []report.Flag{report.CountedFlag(report.FlagOverBudget, 137)}}}
	unbounded := map[Key]report.Measurement{k: {Flags: []report.Flag{report.CountedFlag(report.FlagUnbounded, -1)}}}
	if got := newFlags(old, unbounded, []Key{k}); len(got) != 0 {
		t.Errorf("unbounded counted as a new flag: %q", got)
	}
	clean := map[Key]report.Measurement{k: {}}
	over := map[Key]report.Measurement{k: {Flags: []report.Flag{report.CountedFlag(report.FlagOverBudget, 120)}}}
	if got := newFlags(clean, over, []Key{k}); len(got) != 1 {
		t.Errorf("a new over-budget flag: %q, want it reported", got)
	}
}
