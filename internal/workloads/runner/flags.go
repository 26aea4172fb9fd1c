package runner

import (
	"math"

	"github.com/cachebench/cachebench/internal/report"
)

// finish sets the flags that must travel with a measurement's figures.
// everyKeyWritten is true for a workload that wrote every key before its
// reads (workloads.Spec.WritesEveryKey).
func finish(ms []report.Measurement, everyKeyWritten bool) {
	for i := range ms {
		m := &ms[i]
		var wrong, errs, misses int64
		for _, s := range m.Samples {
			wrong += s.Wrong
			errs += s.Errors
			misses += s.Misses
		}
		m.Flags = m.Flags[:0]
		if wrong > 0 {
			m.Flags = append(m.Flags, report.CountedFlag(report.FlagWrongValues, wrong))
		}
		if errs > 0 {
			m.Flags = append(m.Flags, report.CountedFlag(report.FlagErrors, errs))
		}
		// Every key was written (insert-lookup, mixed): a miss is an entry
		// the adapter lost (eviction, dropped set, collision).
		if misses > 0 && everyKeyWritten &&
			(m.Phase == report.PhaseLookup || m.Phase == report.PhaseMixed || m.Phase == report.PhaseLookupCold ||
				m.Phase == report.PhaseLookupBatch || m.Phase == report.PhaseReadVector) {
			m.Flags = append(m.Flags, report.CountedFlag(report.FlagLostEntries, misses))
		}
		// An adapter holding more than its budget (an arena cache rounding
		// its size up) is not comparable on hit ratio; nor is one that
		// never evicts by design (map), which is marked unbounded rather
		// than over budget.
		var over float64
		unbounded := false
		for _, s := range m.Samples {
			if s.Held.Over() {
				over = max(over, s.Held.Ratio())
			}
			unbounded = unbounded || (s.Held != nil && s.Held.Unbounded && s.Held.Beyond())
		}
		if over > 0 {
			m.Flags = append(m.Flags, report.CountedFlag(report.FlagOverBudget, int64(math.Round(100*over))))
		}
		// An open loop that fell behind its offered rate measured an
		// overloaded system: never passed off as meeting the rate.
		if f, ok := report.SaturatedFlag(m); ok {
			m.Flags = append(m.Flags, f)
		}
		if unbounded {
			m.Flags = append(m.Flags, report.CountedFlag(report.FlagUnbounded, -1))
		}
		if len(m.Flags) == 0 {
			m.Flags = nil
		}
	}
}
