package report

import (
	"math"
	"strings"
)

// addVectorTable shows the read-vector workload: the time to read a
// float64 vector and sum it, and that time as a ratio to the reference's
// (Measurement.Reference, the vector kept as text and parsed on every
// read) in the same repetition. Repetitions interleave the adapters, so
// the ratio of one repetition compares two passes run moments apart:
// drift of a shared machine cancels in it, as it does not in a ratio of
// two means.
func addVectorTable(d *document, g *group) {
	const phase = PhaseReadVector
	rows := hasPhase(g, phase)
	if len(rows) == 0 {
		return
	}
	ref := referenceRow(g, rows, phase)
	rows = rankRows(rows, func(r *row) float64 { return r.mean(phase, MetricNsPerOp) },
		func(r *row) bool { return r.flagged(phase, PhaseInsert) })
	refHead := "Ratio ± sd"
	if ref != nil {
		refHead = "× " + ref.adapter + " ± sd"
	}
	t := NewFigureTable("Implementation", "Read+sum ns ± sd", refHead, "Reads/s ± sd", "p50", "p99",
		"allocs/read", "B/read", "Insert ns ± sd")
	for _, r := range rows {
		t.Add(r.name(phase, PhaseInsert),
			fmtNsSD(r.stat(phase, MetricNsPerOp)),
			fmtRatioSD(pairedRatio(r, ref, phase)),
			fmtSISD(r.stat(phase, MetricOpsPerSec)),
			fmtNs(r.mean(phase, MetricP50)),
			fmtNs(r.mean(phase, MetricP99)),
			fmtSmall(r.mean(phase, MetricAllocsPerOp)),
			FormatBytes(r.mean(phase, MetricBytesPerOp)),
			fmtNsSD(r.stat(PhaseInsert, MetricNsPerOp)))
	}
	d.para("Read a float64 vector and sum it, every key once in random order; fastest first:")
	d.table(t)
	var ns []string
	ns = append(ns, rankNote(rows, phase, PhaseInsert)...)
	switch want := wantedReference(rows, phase); {
	case ref != nil:
		ns = append(ns, "× "+ref.adapter+": each repetition's time divided by "+ref.adapter+"'s in the same repetition (the adapters run interleaved), mean ± sd over the repetitions.")
	case want != "":
		ns = append(ns, "No ratios: the reference, "+want+", is not in this result.")
	}
	ns = append(ns, notes("Read", rows, phase)...)
	ns = append(ns, notes("Insert", rows, PhaseInsert)...)
	d.para(strings.Join(ns, " "))
}

// wantedReference is the reference the rows' measurements of phase name
// (the first one named), "" when none does.
func wantedReference(rows []*row, phase Phase) string {
	for _, r := range rows {
		if m := r.phases[phase]; m != nil && m.Reference != "" {
			return m.Reference
		}
	}
	return ""
}

// referenceRow is the row of the reference the measurements of phase
// name, or nil when they name none or it is not in g. A reference that
// is itself flagged is no yardstick: nil too.
func referenceRow(g *group, rows []*row, phase Phase) *row {
	want := wantedReference(rows, phase)
	if want == "" {
		return nil
	}
	for _, r := range g.rows {
		if r.adapter == want && r.phases[phase] != nil && !r.flagged(phase) {
			return r
		}
	}
	return nil
}

// pairedRatio summarises r's time per op in phase divided by ref's in the
// sample of the same index (the same repetition), over the repetitions
// both have. The zero Summary when there is no reference.
func pairedRatio(r, ref *row, phase Phase) Summary {
	if ref == nil || r.phases[phase] == nil {
		return Summary{}
	}
	a, b := r.phases[phase].Samples, ref.phases[phase].Samples
	var ratios []float64
	for i := range min(len(a), len(b)) {
		if b[i].NsPerOp > 0 {
			ratios = append(ratios, a[i].NsPerOp/b[i].NsPerOp)
		}
	}
	return Summarize(ratios)
}

// fmtRatioSD formats a ratio's mean ± sd with three significant digits
// of the mean: "0.372 ± 0.015".
func fmtRatioSD(s Summary) string {
	switch {
	case s.N == 0 || math.IsNaN(s.Mean):
		return dash
	case s.N < 2:
		return FormatFigure(s.Mean, TableDigits)
	}
	d := decimals(s.Mean)
	return ftoa(s.Mean, d) + " ± " + ftoa(s.SD, d)
}
