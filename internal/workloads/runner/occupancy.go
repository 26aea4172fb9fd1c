package runner

import (
	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
)

// byteStats are the statistics that carry an adapter's memory for entries,
// in order of preference: what it holds, then what it has reserved (an
// arena cache's arenas are all reserved for entries).
var byteStats = []string{"bytes_held", "bytes_size", "bytes_used", "capacity_bytes"}

// ReadOccupancy reads what a holds, by its own account: "entries" and the
// first of byteStats in its Stats, or, for entries, its Len. An adapter
// that reports bytes is judged on bytes against the memory budget, one
// that reports only entries on entries against the entry budget.
func ReadOccupancy(a engine.Adapter, o engine.Options) *report.Held {
	h := &report.Held{Entries: -1, Bytes: -1, BudgetEntries: int64(o.Entries), BudgetBytes: o.MemoryBytes}
	if st, ok := a.(engine.Statser); ok {
		s := st.Stats()
		if v, ok := s["entries"]; ok {
			h.Entries = int64(v)
		}
		for _, k := range byteStats {
			if v, ok := s[k]; ok {
				h.Bytes = int64(v)
				break
			}
		}
	}
	if l, ok := a.(engine.Lener); ok && h.Entries < 0 {
		h.Entries = int64(l.Len())
	}
	switch {
	case h.Bytes >= 0:
		h.Basis = "bytes"
	case h.Entries >= 0:
		h.Basis = "entries"
	}
	return h
}
