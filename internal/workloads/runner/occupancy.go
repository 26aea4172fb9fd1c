package runner

import (
	"github.com/cachebench/cachebench/internal/engine"
)

// OverBudgetTolerance is how far past its budget an adapter may hold
// before it is flagged: 5%.
const OverBudgetTolerance = 0.05

// Occupancy is what an adapter holds after a pass, by its own account,
// next to the budget it was given.
type Occupancy struct {
	// Entries held (-1: the adapter does not say).
	Entries int64
	// Bytes held or reserved for entries (-1: the adapter does not say).
	Bytes int64
	// BudgetEntries and BudgetBytes are the run's budget.
	BudgetEntries, BudgetBytes int64
	// Basis is what the judgement is made on: "bytes" for adapters that
	// report their memory, "entries" for the others, "" when the adapter
	// reports neither.
	Basis string
}

// byteStats are the statistics that carry an adapter's memory for entries,
// in order of preference: what it holds, then what it has reserved (an
// arena cache's arenas are all reserved for entries).
var byteStats = []string{"bytes_held", "bytes_size", "bytes_used", "capacity_bytes"}

// ReadOccupancy reads a's occupancy from its Stats ("entries" and the
// first of byteStats present) or, for entries, its Len.
func ReadOccupancy(a engine.Adapter, o engine.Options) Occupancy {
	occ := Occupancy{Entries: -1, Bytes: -1, BudgetEntries: int64(o.Entries), BudgetBytes: o.MemoryBytes}
	if st, ok := a.(engine.Statser); ok {
		s := st.Stats()
		if v, ok := s["entries"]; ok {
			occ.Entries = int64(v)
		}
		for _, k := range byteStats {
			if v, ok := s[k]; ok {
				occ.Bytes = int64(v)
				break
			}
		}
	}
	if l, ok := a.(engine.Lener); ok && occ.Entries < 0 {
		occ.Entries = int64(l.Len())
	}
	switch {
	case occ.Bytes >= 0:
		occ.Basis = "bytes"
	case occ.Entries >= 0:
		occ.Basis = "entries"
	}
	return occ
}

// Ratio is held over budget on the judged basis (0 when unknown).
func (o Occupancy) Ratio() float64 {
	switch o.Basis {
	case "bytes":
		if o.BudgetBytes > 0 {
			return float64(o.Bytes) / float64(o.BudgetBytes)
		}
	case "entries":
		if o.BudgetEntries > 0 {
			return float64(o.Entries) / float64(o.BudgetEntries)
		}
	}
	return 0
}

// Over reports whether the adapter holds more than its budget allows,
// past OverBudgetTolerance.
func (o Occupancy) Over() bool { return o.Ratio() > 1+OverBudgetTolerance }
