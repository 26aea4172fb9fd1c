package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// openGroup is the open-loop measurements of one workload, phase and
// GOMAXPROCS value, in the order the run took them (adapter by adapter,
// rates ascending within an adapter once sorted).
type openGroup struct {
	workload string
	phase    Phase
	procs    int
	ms       []*Measurement
}

// splitOpen separates the open-loop measurements (Rate > 0) from the
// closed-loop ones, which the run tables show as they always have, and
// groups the open ones.
func splitOpen(ms []Measurement) (closed []Measurement, groups []*openGroup) {
	byKey := map[string]*openGroup{}
	for i := range ms {
		m := &ms[i]
		if m.Rate <= 0 {
			closed = append(closed, *m)
			continue
		}
		k := fmt.Sprintf("%s\x00%s\x00%d", m.Workload, m.Phase, m.Procs)
		g, ok := byKey[k]
		if !ok {
			g = &openGroup{workload: m.Workload, phase: m.Phase, procs: m.Procs}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.ms = append(g.ms, m)
	}
	for _, g := range groups {
		order := map[string]int{}
		for _, m := range g.ms {
			if _, ok := order[m.Adapter]; !ok {
				order[m.Adapter] = len(order)
			}
		}
		sort.SliceStable(g.ms, func(i, j int) bool {
			a, b := g.ms[i], g.ms[j]
			if order[a.Adapter] != order[b.Adapter] {
				return order[a.Adapter] < order[b.Adapter]
			}
			return a.Rate < b.Rate
		})
	}
	return closed, groups
}

// openMean is the mean over m's open-loop repetitions of f, NaN when
// there is none.
func openMean(m *Measurement, f func(o *OpenLoop) float64) float64 {
	var sum float64
	n := 0
	for i := range m.Samples {
		if o := m.Samples[i].Open; o != nil {
			sum += f(o)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// addOpenLoop adds, for each group, the latency-against-offered-rate
// table: per adapter and rate the achieved rate, the corrected
// percentiles, the uncorrected ones beside them and the backlog; a
// saturated row says so in its name. With an objective it names each
// adapter's highest rate meeting it.
func addOpenLoop(d *document, level int, groups []*openGroup, slo *SLO) {
	for _, g := range groups {
		d.heading(level, "%s · %s · GOMAXPROCS %d · open loop", g.workload, g.phase, g.procs)
		d.para("Latency at a fixed offered rate, from each operation's intended start (corrected: what a caller arriving on schedule waits), " +
			"with the latency from its actual start (uncorrected: what a closed loop reports) beside it; every operation timed:")
		t := NewFigureTable("Implementation", "Offered/s", "Achieved/s", "p50", "p99", "p99.9", "max",
			"Uncorrected p99", "Uncorrected p99.9", "Max backlog", "Max lag", "GCs", "Hit %")
		for _, m := range g.ms {
			name := m.Adapter
			for _, f := range m.Flags {
				name += " " + f.Text()
			}
			hit := math.NaN()
			if h, ok := m.HitRatio(); ok {
				hit = h
			}
			t.Add(name, fmtSI(m.Rate),
				fmtSISD(Summarize(openValues(m, func(o *OpenLoop) float64 { return o.Achieved }))),
				fmtNs(meanOf(m, MetricP50)), fmtNs(meanOf(m, MetricP99)), fmtNs(meanOf(m, MetricP999)), fmtNs(meanOf(m, MetricMax)),
				fmtNs(openMean(m, func(o *OpenLoop) float64 { return o.Uncorrected.P99 })),
				fmtNs(openMean(m, func(o *OpenLoop) float64 { return o.Uncorrected.P999 })),
				FormatFigure(openMean(m, func(o *OpenLoop) float64 { return float64(o.MaxBacklog) }), TableDigits),
				fmtNs(openMean(m, func(o *OpenLoop) float64 { return o.MaxLagNs })),
				gcCell(m), fmtPercent(hit))
		}
		d.table(t)
		ns := []string{fmt.Sprintf("A row whose achieved rate fell below %.0f%% of the offered one is marked saturated: its latency is that of a system "+
			"falling behind, not of the rate offered. Max backlog is the most operations due and not yet sent at once in one worker, "+
			"max lag the longest an operation started after its intended start (a worker behind schedule sends at once and skips none). "+
			"GCs counts the garbage collections during the pass, natural and forced (run --gc-every).",
			100*SaturatedBelow)}
		if slo != nil {
			ns = append(ns, sloLine(g, *slo))
		}
		ns = append(ns, notes(string(g.phase), openRows(g), g.phase)...)
		d.para(joinNotes(ns))
	}
}

// gcCell is the mean count of collections during the pass, with the
// forced ones among them when any was forced: "12 (4 forced)".
func gcCell(m *Measurement) string {
	cycles := openMean(m, func(o *OpenLoop) float64 { return float64(o.GCCycles) })
	forced := openMean(m, func(o *OpenLoop) float64 { return float64(o.ForcedGCs) })
	cell := FormatFigure(cycles, TableDigits)
	if forced > 0 {
		cell += " (" + FormatFigure(forced, TableDigits) + " forced)"
	}
	return cell
}

// openValues lists f over m's open-loop repetitions.
func openValues(m *Measurement, f func(o *OpenLoop) float64) []float64 {
	var out []float64
	for i := range m.Samples {
		if o := m.Samples[i].Open; o != nil {
			out = append(out, f(o))
		}
	}
	return out
}

// meanOf is the mean of metric over m's repetitions, NaN when absent.
func meanOf(m *Measurement, metric Metric) float64 {
	st := m.Stat(metric)
	if st.N == 0 {
		return math.NaN()
	}
	return st.Mean
}

// openRows wraps a group's measurements as rows, one per distinct note,
// for notes().
func openRows(g *openGroup) []*row {
	var out []*row
	for _, m := range g.ms {
		out = append(out, &row{adapter: m.Adapter + " at " + fmtSI(m.Rate) + "/s", phases: map[Phase]*Measurement{g.phase: m}})
	}
	return out
}

// HighestMeeting is the highest offered rate of ms (one adapter's
// open-loop measurements) meeting slo, and whether any does.
func HighestMeeting(ms []*Measurement, slo SLO) (float64, bool) {
	best, ok := 0.0, false
	for _, m := range ms {
		if slo.Met(m) && m.Rate > best {
			best, ok = m.Rate, true
		}
	}
	return best, ok
}

// sloLine names each adapter's highest offered rate meeting the
// objective, or says that none did.
func sloLine(g *openGroup, slo SLO) string {
	byAdapter := map[string][]*Measurement{}
	var order []string
	for _, m := range g.ms {
		if _, ok := byAdapter[m.Adapter]; !ok {
			order = append(order, m.Adapter)
		}
		byAdapter[m.Adapter] = append(byAdapter[m.Adapter], m)
	}
	var parts []string
	for _, a := range order {
		if r, ok := HighestMeeting(byAdapter[a], slo); ok {
			parts = append(parts, a+" "+fmtSI(r)+"/s")
		} else {
			parts = append(parts, a+" none of the rates measured")
		}
	}
	return fmt.Sprintf("Highest offered rate meeting %s (corrected, mean over the repetitions, not saturated): %s.",
		sloText(slo), strings.Join(parts, "; "))
}

// sloText is the objective for a sentence, e.g. "p99 ≤ 1ms".
func sloText(slo SLO) string {
	name, _, _ := strings.Cut(slo.String(), "=")
	return name + " ≤ " + time.Duration(slo.Max).String()
}
