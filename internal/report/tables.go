package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

func hasPhase(g *group, phases ...Phase) []*row {
	var out []*row
	for _, r := range g.rows {
		for _, p := range phases {
			if r.phases[p] != nil {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// notes lists what the figures of phase include, one line per distinct
// Note, naming the adapters when not all rows share it.
func notes(label string, rows []*row, phase Phase) []string {
	byNote := map[string][]string{}
	var order []string
	with := 0
	for _, r := range rows {
		m := r.phases[phase]
		if m == nil {
			continue
		}
		with++
		if m.Note == "" {
			continue
		}
		if _, ok := byNote[m.Note]; !ok {
			order = append(order, m.Note)
		}
		byNote[m.Note] = append(byNote[m.Note], r.adapter)
	}
	sort.Strings(order)
	var out []string
	for _, n := range order {
		who := ""
		if len(byNote[n]) < with {
			who = " (" + strings.Join(byNote[n], ", ") + ")"
		}
		out = append(out, label+who+": "+n+".")
	}
	return out
}

func addMainTable(d *document, g *group) {
	rows := hasPhase(g, PhaseInsert, PhaseLookup)
	if len(rows) == 0 {
		return
	}
	rows = rankRows(rows, func(r *row) float64 {
		if v := r.mean(PhaseLookup, MetricNsPerOp); !math.IsNaN(v) {
			return v
		}
		// Insert-only rows (a run cut short) rank after every lookup.
		return math.Inf(1)
	}, func(r *row) bool { return r.flagged(PhaseInsert, PhaseLookup) })
	t := NewFigureTable("Implementation", "Lookup ns ± sd", "Lookup QPS ± sd", "Insert ns ± sd", "Insert QPS ± sd",
		"Lookup p99", "Lookup allocs/op", "Hit %")
	d.para("Insert every key, then look every key up in random order; fastest lookup first:")
	for _, r := range rows {
		t.Add(r.name(PhaseInsert, PhaseLookup),
			fmtNsSD(r.stat(PhaseLookup, MetricNsPerOp)),
			fmtSISD(r.stat(PhaseLookup, MetricOpsPerSec)),
			fmtNsSD(r.stat(PhaseInsert, MetricNsPerOp)),
			fmtSISD(r.stat(PhaseInsert, MetricOpsPerSec)),
			fmtNs(r.mean(PhaseLookup, MetricP99)),
			fmtSmall(r.mean(PhaseLookup, MetricAllocsPerOp)),
			fmtPercent(r.hitRatio(PhaseLookup)))
	}
	d.table(t)
	d.para(strings.Join(append(rankNote(rows, PhaseInsert, PhaseLookup), notes("Insert", rows, PhaseInsert)...), " "))
}

// rankNote explains the order of a table: fastest first, flagged rows
// last and unranked.
func rankNote(rows []*row, phases ...Phase) []string {
	var flagged []string
	for _, r := range rows {
		if r.flagged(phases...) {
			flagged = append(flagged, r.adapter)
		}
	}
	if len(flagged) == 0 {
		return nil
	}
	return []string{"⚠ " + strings.Join(flagged, ", ") + ": flagged, listed last and not ranked; see the flags next to the name."}
}

// addFileTable shows the phases only some adapters have: open time and
// cold lookups of file stores, batched lookups.
func addFileTable(d *document, g *group) {
	rows := hasPhase(g, PhaseOpen, PhaseLookupBatch, PhaseLookupCold)
	if len(rows) == 0 {
		return
	}
	phases := []Phase{PhaseOpen, PhaseLookupBatch, PhaseLookupCold}
	rows = rankRows(rows, func(r *row) float64 {
		if v := r.mean(PhaseLookupBatch, MetricNsPerOp); !math.IsNaN(v) {
			return v
		}
		return r.mean(PhaseLookupCold, MetricNsPerOp)
	}, func(r *row) bool { return r.flagged(phases...) })
	d.para("File stores and batched lookups:")
	t := NewFigureTable("Implementation", "Open", "Batch lookup ns ± sd", "Batch QPS ± sd", "Cold lookup ns ± sd", "Cold p99", "Cold hit %")
	for _, r := range rows {
		t.Add(r.name(phases...),
			fmtNsSD(r.stat(PhaseOpen, MetricNsPerOp)),
			fmtNsSD(r.stat(PhaseLookupBatch, MetricNsPerOp)),
			fmtSISD(r.stat(PhaseLookupBatch, MetricOpsPerSec)),
			fmtNsSD(r.stat(PhaseLookupCold, MetricNsPerOp)),
			fmtNs(r.mean(PhaseLookupCold, MetricP99)),
			fmtPercent(r.hitRatio(PhaseLookupCold)))
	}
	d.table(t)
	var ns []string
	ns = append(ns, rankNote(rows, phases...)...)
	ns = append(ns, notes("Open", rows, PhaseOpen)...)
	ns = append(ns, notes("Batch lookup", rows, PhaseLookupBatch)...)
	ns = append(ns, notes("Cold lookup", rows, PhaseLookupCold)...)
	d.para(strings.Join(ns, " "))
}

func addMixedTable(d *document, g *group, phase Phase, label string) {
	rows := hasPhase(g, phase)
	if len(rows) == 0 {
		return
	}
	rows = rankRows(rows, func(r *row) float64 { return r.mean(phase, MetricNsPerOp) },
		func(r *row) bool { return r.flagged(phase) })
	t := NewFigureTable("Implementation", "ns/op ± sd", "QPS ± sd", "p50", "p99", "p99.9", "allocs/op", "B/op", "Hit %")
	showHeld := anyHeld(rows, phase)
	if showHeld {
		t = NewFigureTable("Implementation", "ns/op ± sd", "QPS ± sd", "p50", "p99", "p99.9", "allocs/op", "B/op", "Hit %", "Held / budget")
	}
	for _, r := range rows {
		cells := []string{r.name(phase),
			fmtNsSD(r.stat(phase, MetricNsPerOp)),
			fmtSISD(r.stat(phase, MetricOpsPerSec)),
			fmtNs(r.mean(phase, MetricP50)),
			fmtNs(r.mean(phase, MetricP99)),
			fmtNs(r.mean(phase, MetricP999)),
			fmtSmall(r.mean(phase, MetricAllocsPerOp)),
			FormatBytes(r.mean(phase, MetricBytesPerOp)),
			fmtPercent(r.hitRatio(phase))}
		if showHeld {
			cells = append(cells, r.held(phase))
		}
		t.Add(cells...)
	}
	d.para(label + ", fastest first:")
	d.table(t)
	d.para(strings.Join(append(rankNote(rows, phase), notes(label, rows, phase)...), " "))
}

// addGetOrSetTable ranks by hit ratio: in a capacity-bound cache the hit
// ratio is what the workload measures, speed comes second.
func addGetOrSetTable(d *document, g *group) {
	const phase = PhaseGetOrSet
	rows := hasPhase(g, phase)
	if len(rows) == 0 {
		return
	}
	rows = rankRows(rows, func(r *row) float64 { return -r.hitRatio(phase) },
		func(r *row) bool { return r.flagged(phase) })
	// Memory columns appear when an adapter reported its footprint
	// (network servers, caches that count their bytes), and what it held
	// against the run's budget when the runner read its occupancy.
	memory := false
	for _, r := range rows {
		if !math.IsNaN(r.mean(phase, MetricHeldRatio)) || !math.IsNaN(r.mean(phase, MetricRSSRatio)) {
			memory = true
		}
	}
	showHeld := anyHeld(rows, phase)
	head := []string{"Implementation", "Hit %", "Hot hit %", "Cold hit %", "ns/op ± sd", "QPS ± sd", "p50", "p99", "allocs/op", "B/op"}
	if memory {
		head = append(head, "Held / limit", "RSS / limit")
	}
	if showHeld {
		head = append(head, "Held / budget")
	}
	t := NewFigureTable(head...)
	for _, r := range rows {
		cells := []string{r.name(phase),
			fmtPercent(r.hitRatio(phase)),
			fmtPercent(r.mean(phase, MetricHotHitRatio)),
			fmtPercent(r.mean(phase, MetricColdHitRatio)),
			fmtNsSD(r.stat(phase, MetricNsPerOp)),
			fmtSISD(r.stat(phase, MetricOpsPerSec)),
			fmtNs(r.mean(phase, MetricP50)),
			fmtNs(r.mean(phase, MetricP99)),
			fmtSmall(r.mean(phase, MetricAllocsPerOp)),
			FormatBytes(r.mean(phase, MetricBytesPerOp))}
		if memory {
			cells = append(cells, fmtLimitPercent(r.mean(phase, MetricHeldRatio)), fmtLimitPercent(r.mean(phase, MetricRSSRatio)))
		}
		if showHeld {
			cells = append(cells, r.held(phase))
		}
		t.Add(cells...)
	}
	d.para("Get-or-set (a miss sets the key), highest hit ratio first:")
	d.table(t)
	d.para(strings.Join(append(rankNote(rows, phase), notes("Get-or-set", rows, phase)...), " "))
}

// anyHeld reports whether any row recorded its occupancy in phase (results
// written before occupancy was read have none, and keep their columns).
func anyHeld(rows []*row, phase Phase) bool {
	for _, r := range rows {
		if r.maxHeld(phase) != nil {
			return true
		}
	}
	return false
}

// maxHeld is the repetition in which the row held the most of its budget.
func (r *row) maxHeld(phase Phase) *Held {
	m := r.phases[phase]
	if m == nil {
		return nil
	}
	var h *Held
	for i := range m.Samples {
		if s := m.Samples[i].Held; s != nil && (h == nil || s.Ratio() > h.Ratio()) {
			h = s
		}
	}
	return h
}

// held renders what the adapter held against its budget, on the basis it
// is judged on, e.g. "254% (32.0 MiB / 12.6 MiB)".
func (r *row) held(phase Phase) string {
	h := r.maxHeld(phase)
	switch {
	case h == nil || h.Basis == "":
		return "–"
	case h.Basis == "bytes":
		return fmt.Sprintf("%.0f%% (%s / %s)", 100*h.Ratio(), FormatBytes(float64(h.Bytes)), FormatBytes(float64(h.BudgetBytes)))
	default:
		return fmt.Sprintf("%.0f%% (%s / %s entries)", 100*h.Ratio(), fmtInt(h.Entries), fmtInt(h.BudgetEntries))
	}
}

// addOtherTable shows phases this version does not know, so that no
// measurement in a result is silently left out of its report.
func addOtherTable(d *document, g *group) {
	t := NewFigureTable("Implementation", "Phase", "ns/op ± sd", "QPS ± sd", "p99", "allocs/op", "Hit %")
	for _, r := range g.rows {
		for _, p := range r.order {
			if p.Known() {
				continue
			}
			t.Add(r.name(p), string(p),
				fmtNsSD(r.stat(p, MetricNsPerOp)),
				fmtSISD(r.stat(p, MetricOpsPerSec)),
				fmtNs(r.mean(p, MetricP99)),
				fmtSmall(r.mean(p, MetricAllocsPerOp)),
				fmtPercent(r.hitRatio(p)))
		}
	}
	if len(t.Rows) > 0 {
		d.para("Other phases:")
		d.table(t)
	}
}
