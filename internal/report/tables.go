package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
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
	// read-vector's insert is shown in its own table.
	rows = slices.DeleteFunc(rows, func(r *row) bool {
		return r.phases[PhaseLookup] == nil && r.phases[PhaseReadVector] != nil
	})
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
	flagged := func(r *row) bool { return r.flagged(PhaseInsert, PhaseLookup) }
	// In insert-lookup every key was written, so every lookup of a sound
	// adapter hits: a column of 100% says nothing. A miss flags the row
	// (missing entries), and then the column is shown.
	showHit := !allHit(rows, PhaseLookup)
	head := []string{"Implementation", "Lookup ns ± sd", "Lookup QPS ± sd", "Insert ns ± sd", "Insert QPS ± sd",
		"Lookup p99", "Lookup allocs/op"}
	if showHit {
		head = append(head, "Hit %")
	}
	t := NewFigureTable(head...)
	d.para("Insert every key, then look every key up in random order; fastest lookup first:")
	for _, r := range rows {
		cells := []string{r.name(PhaseInsert, PhaseLookup),
			fmtNsSD(r.stat(PhaseLookup, MetricNsPerOp)),
			fmtSISD(r.stat(PhaseLookup, MetricOpsPerSec)),
			fmtNsSD(r.stat(PhaseInsert, MetricNsPerOp)),
			fmtSISD(r.stat(PhaseInsert, MetricOpsPerSec)),
			fmtNs(r.mean(PhaseLookup, MetricP99)),
			fmtSmall(r.mean(PhaseLookup, MetricAllocsPerOp))}
		if showHit {
			cells = append(cells, fmtPercent(r.hitRatio(PhaseLookup)))
		}
		t.Add(cells...)
	}
	rankLine := addRankColumn(t, rows, PhaseLookup, MetricNsPerOp, flagged)
	d.table(t)
	ns := append(rankNote(rows, PhaseInsert, PhaseLookup), rankLine)
	if !showHit && !slices.ContainsFunc(rows, flagged) {
		// Said only when no row is flagged: a wrong value is a hit too,
		// and a flagged row under this line would contradict it.
		ns = append(ns, "Every lookup hit and returned the value written (a miss or a wrong value would flag the row).")
	}
	ns = append(ns, notes("Insert", rows, PhaseInsert)...)
	ns = append(ns, newNote(rows))
	ns = append(ns, hugeNote(rows))
	ns = append(ns, spreadWarning(rows, flagged, MetricNsPerOp, PhaseLookup, PhaseInsert))
	d.para(joinNotes(ns))
}

// hugeNote says how much of each adapter's memory was on 2 MiB pages
// after the insert (Sample.HugeBytes), lowest and highest over the
// repetitions, when any was: a lookup's TLB misses depend on it, and an
// instance that got fewer of them than the others is slower for it.
func hugeNote(rows []*row) string {
	var got []string
	measured := 0
	for _, r := range rows {
		m := r.phases[PhaseInsert]
		if m == nil || len(m.Samples) == 0 {
			continue
		}
		measured++
		lo, hi := m.Samples[0].HugeBytes, m.Samples[0].HugeBytes
		for _, s := range m.Samples[1:] {
			lo, hi = min(lo, s.HugeBytes), max(hi, s.HugeBytes)
		}
		switch {
		case hi == 0:
			continue
		case lo == hi:
			got = append(got, fmt.Sprintf("%s %s", r.adapter, FormatBytes(float64(hi))))
		default:
			got = append(got, fmt.Sprintf("%s %s to %s", r.adapter, FormatBytes(float64(lo)), FormatBytes(float64(hi))))
		}
	}
	return listNote("On 2 MiB pages after the insert (the process's AnonHugePages, less its amount before New): ", got, measured, "; the others none")
}

// newNote names the adapters whose constructor took a millisecond or
// more before the insert pass: work done up front (memory backed in New,
// say) is not in the insert figures, so it is shown beside them.
func newNote(rows []*row) string {
	var slow []string
	measured := 0
	for _, r := range rows {
		st := r.stat(PhaseInsert, MetricNew)
		if st.N == 0 {
			continue
		}
		measured++
		if st.Mean >= 1e6 {
			slow = append(slow, r.adapter+" "+fmtNsSD(st))
		}
	}
	return listNote("New, before the insert pass and not in its figures: ", slow, measured, "; the others under 1 ms")
}

// listNote is a note naming some of the measured adapters: head, then
// named, then others when not all measured ones were named; "" when
// none was.
func listNote(head string, named []string, measured int, others string) string {
	if len(named) == 0 {
		return ""
	}
	if len(named) == measured {
		others = ""
	}
	return head + strings.Join(named, ", ") + others + "."
}

// joinNotes joins the non-empty notes under a table.
func joinNotes(ns []string) string {
	var out []string
	for _, n := range ns {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, " ")
}

// rankNote explains the order of a table: fastest first, flagged rows
// last and unranked.
func rankNote(rows []*row, phases ...Phase) []string {
	var flagged, unbounded []string
	for _, r := range rows {
		switch {
		case r.onlyUnbounded(phases...):
			unbounded = append(unbounded, r.adapter)
		case r.flagged(phases...):
			flagged = append(flagged, r.adapter)
		}
	}
	var out []string
	if len(unbounded) > 0 {
		out = append(out, strings.Join(unbounded, ", ")+": unbounded, holds everything it is given, not comparable on hit ratio; listed last and not ranked.")
	}
	if len(flagged) > 0 {
		out = append(out, "⚠ "+strings.Join(flagged, ", ")+": flagged, listed last and not ranked; see the flags next to the name.")
	}
	return out
}

// addFileTable shows the phases of file stores (open time, cold lookups,
// and their batched lookups) in a table, and the batched lookups of the
// other adapters as lines: a memory-only run has one or two of them, and
// a table of file columns holding dashes said nothing.
func addFileTable(d *document, g *group) {
	files := hasPhase(g, PhaseOpen, PhaseLookupCold)
	isFile := map[*row]bool{}
	for _, r := range files {
		isFile[r] = true
	}
	var batchOnly []*row
	for _, r := range hasPhase(g, PhaseLookupBatch) {
		if !isFile[r] {
			batchOnly = append(batchOnly, r)
		}
	}
	if len(files) > 0 {
		addFileStoreTable(d, files)
	}
	if len(batchOnly) > 0 {
		d.para(batchLines(batchOnly))
	}
}

func addFileStoreTable(d *document, rows []*row) {
	phases := []Phase{PhaseOpen, PhaseLookupBatch, PhaseLookupCold}
	flagged := func(r *row) bool { return r.flagged(phases...) }
	rows = rankRows(rows, func(r *row) float64 { return r.mean(PhaseLookupCold, MetricNsPerOp) }, flagged)
	batch := len(hasPhase(&group{rows: rows}, PhaseLookupBatch)) > 0
	showHit := !allHit(rows, PhaseLookupCold)
	head := []string{"Implementation", "Open"}
	if batch {
		head = append(head, "Batch lookup ns ± sd", "Batch QPS ± sd")
	}
	head = append(head, "Cold lookup ns ± sd", "Cold p50", "Cold p99.9", "Cold max")
	if showHit {
		head = append(head, "Cold hit %")
	}
	t := NewFigureTable(head...)
	for _, r := range rows {
		cells := []string{r.name(phases...), fmtNsSD(r.stat(PhaseOpen, MetricNsPerOp))}
		if batch {
			cells = append(cells, fmtNsSD(r.stat(PhaseLookupBatch, MetricNsPerOp)), fmtSISD(r.stat(PhaseLookupBatch, MetricOpsPerSec)))
		}
		cells = append(cells,
			fmtNsSD(r.stat(PhaseLookupCold, MetricNsPerOp)),
			fmtNs(r.mean(PhaseLookupCold, MetricP50)),
			fmtNs(r.mean(PhaseLookupCold, MetricP999)),
			fmtNs(r.mean(PhaseLookupCold, MetricMax)))
		if showHit {
			cells = append(cells, fmtPercent(r.hitRatio(PhaseLookupCold)))
		}
		t.Add(cells...)
	}
	d.para("File stores, fastest cold lookup first:")
	d.table(t)
	ns := rankNote(rows, phases...)
	ns = append(ns, notes("Open", rows, PhaseOpen)...)
	ns = append(ns, notes("Batch lookup", rows, PhaseLookupBatch)...)
	ns = append(ns, notes("Cold lookup", rows, PhaseLookupCold)...)
	// Why a cold mean can exceed every percentile but the max.
	ns = append(ns, "A cold pass is mostly fast lookups and a few page faults that read the file from disk (up to the max): "+
		"those few carry much of its mean, which can therefore lie above its p99.")
	d.para(joinNotes(ns))
}

// batchLines describes the batched lookups of adapters that are not file
// stores, each against its own single lookup.
func batchLines(rows []*row) string {
	var parts []string
	for _, r := range rows {
		part := r.name(PhaseLookupBatch) + " " + fmtNsSD(r.stat(PhaseLookupBatch, MetricNsPerOp)) + " per key (" +
			fmtSISD(r.stat(PhaseLookupBatch, MetricOpsPerSec)) + " keys/s"
		b, one := r.mean(PhaseLookupBatch, MetricNsPerOp), r.mean(PhaseLookup, MetricNsPerOp)
		if b > 0 && one > 0 {
			part += fmt.Sprintf(", %.2f× its single lookup's throughput", one/b)
		}
		parts = append(parts, part+")")
	}
	ns := []string{"Batched lookup: " + strings.Join(parts, "; ") + "."}
	ns = append(ns, notes("Batch lookup", rows, PhaseLookupBatch)...)
	return joinNotes(ns)
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
	flagged := func(r *row) bool { return r.flagged(phase) }
	rankLine := addRankColumn(t, rows, phase, MetricNsPerOp, flagged)
	d.para(label + ", fastest first:")
	d.table(t)
	ns := append(rankNote(rows, phase), rankLine)
	ns = append(ns, notes(label, rows, phase)...)
	d.para(joinNotes(append(ns, spreadWarning(rows, flagged, MetricNsPerOp, phase))))
}

// addGetOrSetTable ranks by hit ratio: in a capacity-bound cache the hit
// ratio is what the workload measures, speed comes second. Given the cost
// of a miss (penalty > 0) it adds the time per request with misses
// included, time/op + miss ratio × penalty, and ranks by that: what a
// look-aside cache costs its caller per request, speed and hit ratio in
// one figure.
func addGetOrSetTable(d *document, g *group, penalty time.Duration) {
	const phase = PhaseGetOrSet
	rows := hasPhase(g, phase)
	if len(rows) == 0 {
		return
	}
	perRequest := func(r *row) float64 {
		return r.mean(phase, MetricNsPerOp) + (1-r.hitRatio(phase))*float64(penalty.Nanoseconds())
	}
	key := func(r *row) float64 { return -r.hitRatio(phase) }
	if penalty > 0 {
		key = perRequest
	}
	rows = rankRows(rows, key, func(r *row) bool { return r.flagged(phase) })
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
	if penalty > 0 {
		head = slices.Insert(head, 1, "Time per request, misses included")
	}
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
		if penalty > 0 {
			cells = slices.Insert(cells, 1, fmtNs(perRequest(r)))
		}
		if memory {
			cells = append(cells, fmtLimitPercent(r.mean(phase, MetricHeldRatio)), fmtLimitPercent(r.mean(phase, MetricRSSRatio)))
		}
		if showHeld {
			cells = append(cells, r.held(phase))
		}
		t.Add(cells...)
	}
	var rankLine string
	if penalty > 0 {
		// Rows are ordered by time per request, which no repetition
		// statistic is kept for: no rank column.
		d.para(fmt.Sprintf("Get-or-set (a miss sets the key), lowest time per request first, misses included: ns/op + miss ratio × %v per miss:", penalty))
	} else {
		// Ranked on the hit ratio, as the rows are ordered.
		rankLine = addRankColumn(t, rows, phase, MetricHitRatio, func(r *row) bool { return r.flagged(phase) })
		d.para("Get-or-set (a miss sets the key), highest hit ratio first:")
	}
	d.table(t)
	ns := append(rankNote(rows, phase), rankLine)
	d.para(joinNotes(append(ns, notes("Get-or-set", rows, phase)...)))
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
	case h.Unbounded && h.Basis == "bytes":
		return "unbounded (" + FormatBytes(float64(h.Bytes)) + ")"
	case h.Unbounded:
		return "unbounded (" + FormatInt(h.Entries) + " entries)"
	case h.Basis == "bytes":
		return fmt.Sprintf("%.0f%% (%s / %s)", 100*h.Ratio(), FormatBytes(float64(h.Bytes)), FormatBytes(float64(h.BudgetBytes)))
	default:
		return fmt.Sprintf("%.0f%% (%s / %s entries)", 100*h.Ratio(), FormatInt(h.Entries), FormatInt(h.BudgetEntries))
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
