package runner

import (
	"testing"

	"github.com/cachebench/cachebench/internal/report"
)

// TestFinishFlagsLostEntriesOnlyWhereEveryKeyWasWritten: misses of a
// lookup are lost entries in a workload that wrote every key, and
// ordinary misses in one that did not (get-or-set).
func TestFinishFlagsLostEntriesOnlyWhereEveryKeyWasWritten(t *testing.T) {
	for _, everyKey := range []bool{true, false} {
		ms := []report.Measurement{{Adapter: "a", Workload: "w", Phase: report.PhaseLookup, Samples: []report.Sample{{Misses: 3}}}}
		finish(ms, everyKey)
		_, lost := ms[0].Flag(report.FlagLostEntries)
		if lost != everyKey {
			t.Errorf("every key written %v: lost-entries flag %v (flags %v)", everyKey, lost, ms[0].Flags)
		}
	}
}
