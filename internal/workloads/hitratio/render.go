package hitratio

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/report/chart"
)

// Formats are the output formats of Write.
var Formats = []string{"text", "markdown", "json"}

// Write renders r in format ("text", "markdown" or "json"). The text and
// markdown forms give one table per trace, then, over several traces, the
// summary table (Summarize), then the flags and unconfigurable cells, one
// line per adapter and kind.
func Write(w io.Writer, r *Result, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "markdown", "text":
		md := format == "markdown"
		for i := range r.Traces {
			writeTrace(w, &r.Traces[i], md)
		}
		if len(r.Traces) > 1 {
			fmt.Fprintf(w, "\nPoints below the best adapter of each cell, over all %d traces (object hit ratio; reference policies marked ref):\n\n", len(r.Traces))
			writeSummary(w, Summarize(r), md)
		}
		writeNotes(w, r)
		return nil
	}
	return fmt.Errorf("unknown output format %q (valid: %s)", format, strings.Join(Formats, ", "))
}

// Series groups the rows of one adapter in capacity order.
type Series struct {
	Adapter string
	Rows    []Row
}

// Mean is the mean object hit ratio over the capacities the adapter ran.
func (s Series) Mean() float64 {
	sum, n := 0.0, 0
	for _, r := range s.Rows {
		if r.Ran() {
			sum += r.HitRatio
			n++
		}
	}
	return sum / float64(max(n, 1))
}

// BySeries returns OPT first, then the adapters from the best mean object
// hit ratio to the worst.
func (t *TraceResult) BySeries() []Series {
	idx := map[string]int{}
	var out []Series
	for _, r := range t.Rows {
		i, ok := idx[r.Adapter]
		if !ok {
			i = len(out)
			idx[r.Adapter] = i
			out = append(out, Series{Adapter: r.Adapter})
		}
		out[i].Rows = append(out[i].Rows, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i].Adapter == OPTName) != (out[j].Adapter == OPTName) {
			return out[i].Adapter == OPTName
		}
		return out[i].Mean() > out[j].Mean()
	})
	return out
}

func writeTrace(w io.Writer, t *TraceResult, md bool) {
	series := t.BySeries()
	if len(series) == 0 {
		return
	}
	if s := t.Sample; s != nil {
		fmt.Fprintf(w, "\n%s (%s), sampled by key hash at %s of its objects (seed %d%s): %d of %d requests, %d objects of about %d, mean object %.0f B; an unbounded cache hits %.1f%%; read once at %.1fM requests/s, replay loop %.1fM requests/s\n\n",
			t.Name, t.Format, fmt.Sprintf("%.4g%%", 100*s.FinalRate), s.Seed, sampleMax(s.Max), t.Requests, s.InputRequests, t.Distinct, s.Objects,
			t.MeanObjectSize(), 100*t.Infinite, t.NormalizePerSec/1e6, t.ReaderPerSec/1e6)
	} else {
		fmt.Fprintf(w, "\n%s (%s): %d requests, %d objects, mean object %.0f B; an unbounded cache hits %.1f%%; read once at %.1fM requests/s, replay loop %.1fM requests/s\n\n",
			t.Name, t.Format, t.Requests, t.Distinct, t.MeanObjectSize(), 100*t.Infinite, t.NormalizePerSec/1e6, t.ReaderPerSec/1e6)
	}
	head := []string{"object hit %"}
	for _, r := range series[0].Rows {
		if r.Sample != nil {
			// The budget on the whole trace, and the one the sample's
			// caches got.
			head = append(head, fmt.Sprintf("%s (%d→%d)", r.Capacity, r.Sample.Entries, r.Entries))
		} else {
			head = append(head, fmt.Sprintf("%s (%d)", r.Capacity, r.Entries))
		}
	}
	table(w, md, head, series, func(r Row) float64 { return r.HitRatio }, func(s *CellSample) float64 { return s.StdErr })
	if t.Sized {
		head[0] = "byte hit %"
		fmt.Fprintln(w)
		table(w, md, head, series, func(r Row) float64 { return r.ByteHitRatio }, func(s *CellSample) float64 { return s.ByteStdErr })
	}
}

func sampleMax(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", at most %d objects", n)
}

// cell is how a row shows in a table: its figure, ± its standard error
// when sampled, * when flagged, "n/c" when the adapter cannot be
// configured at that size, "failed" when its replay failed.
func cell(r Row, val func(Row) float64, se func(*CellSample) float64) string {
	switch {
	case r.Unconfigurable != "":
		return "n/c"
	case r.Failed != "":
		return "failed"
	}
	c := fmt.Sprintf("%.2f", 100*val(r))
	if r.Sample != nil {
		c += fmt.Sprintf(" ±%.2f", 100*se(r.Sample))
	}
	if len(r.Flags) > 0 {
		c += "*"
	}
	return c
}

func table(w io.Writer, md bool, head []string, series []Series, val func(Row) float64, se func(*CellSample) float64) {
	rows := [][]string{head}
	for _, s := range series {
		cells := []string{s.Adapter}
		for _, r := range s.Rows {
			cells = append(cells, cell(r, val, se))
		}
		rows = append(rows, cells)
	}
	writeTable(w, md, rows)
}

// writeTable writes rows (the first one the head) through the one table
// writer: a markdown table or aligned text columns, figures right-aligned
// in markdown.
func writeTable(w io.Writer, md bool, rows [][]string) {
	t := report.NewFigureTable(rows[0]...)
	for _, r := range rows[1:] {
		t.Add(r...)
	}
	if md {
		t.WriteMarkdown(w)
		return
	}
	t.WriteText(w)
}

// AdapterSummary is one adapter's standing over every cell (trace and
// capacity) of a result: how far its object hit ratio falls below the
// best adapter's in the same cell. The best of a cell is the highest
// object hit ratio among the rows of that cell that ran unflagged, OPT
// excluded; an adapter is measured over its own unflagged cells only.
type AdapterSummary struct {
	Adapter   string `json:"adapter"`
	Reference bool   `json:"reference,omitempty"`
	// Cells is the number of cells it ran unflagged.
	Cells int `json:"cells"`
	// MeanBelow and WorstBelow are the mean and the largest gap to the
	// best, in percentage points.
	MeanBelow  float64 `json:"mean_points_below_best"`
	WorstBelow float64 `json:"worst_points_below_best"`
	// Worst names the cell of WorstBelow ("trace at capacity").
	Worst string `json:"worst_cell"`
	// Best is the number of cells in which it was the best (ties count).
	Best int `json:"best_cells"`
	// Flagged, Unconfigurable and Failed count its other cells.
	Flagged        int `json:"flagged_cells,omitempty"`
	Unconfigurable int `json:"unconfigurable_cells,omitempty"`
	Failed         int `json:"failed_cells,omitempty"`
}

// Summarize ranks the adapters of r by their mean gap to the best of each
// cell, smallest first.
func Summarize(r *Result) []AdapterSummary {
	idx := map[string]int{}
	var out []AdapterSummary
	get := func(name string) *AdapterSummary {
		i, ok := idx[name]
		if !ok {
			i = len(out)
			idx[name] = i
			out = append(out, AdapterSummary{Adapter: name, Reference: references[name] != nil})
		}
		return &out[i]
	}
	for ti := range r.Traces {
		t := &r.Traces[ti]
		best := map[string]float64{}
		for _, row := range t.Rows {
			if row.Adapter != OPTName && row.Ran() && len(row.Flags) == 0 {
				if b, ok := best[row.Capacity]; !ok || row.HitRatio > b {
					best[row.Capacity] = row.HitRatio
				}
			}
		}
		for _, row := range t.Rows {
			if row.Adapter == OPTName {
				continue
			}
			s := get(row.Adapter)
			switch {
			case row.Unconfigurable != "":
				s.Unconfigurable++
			case row.Failed != "":
				s.Failed++
			case len(row.Flags) > 0:
				s.Flagged++
			default:
				gap := 100 * (best[row.Capacity] - row.HitRatio)
				s.MeanBelow += gap
				s.Cells++
				if gap < 1e-9 {
					s.Best++
				}
				if gap > s.WorstBelow || s.Worst == "" {
					s.WorstBelow = gap
					s.Worst = t.Name + " at " + row.Capacity
				}
			}
		}
	}
	for i := range out {
		if out[i].Cells > 0 {
			out[i].MeanBelow /= float64(out[i].Cells)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.Cells == 0) != (b.Cells == 0) {
			return b.Cells == 0
		}
		return a.MeanBelow < b.MeanBelow
	})
	return out
}

func writeSummary(w io.Writer, sum []AdapterSummary, md bool) {
	rows := [][]string{{"adapter", "mean points below best", "worst", "worst cell", "best in", "cells", "flagged", "n/c", "failed"}}
	for _, s := range sum {
		name := s.Adapter
		if s.Reference {
			name += " (ref)"
		}
		mean, worst := "-", "-"
		if s.Cells > 0 {
			mean, worst = fmt.Sprintf("%.2f", s.MeanBelow), fmt.Sprintf("%.2f", s.WorstBelow)
		}
		rows = append(rows, []string{name, mean, worst, s.Worst, fmt.Sprint(s.Best), fmt.Sprint(s.Cells),
			fmt.Sprint(s.Flagged), fmt.Sprint(s.Unconfigurable), fmt.Sprint(s.Failed)})
	}
	writeTable(w, md, rows)
}

// writeNotes lists flagged, unconfigurable and failed cells, one line per
// adapter and kind over the whole result, with the first cell's detail as
// an example.
func writeNotes(w io.Writer, r *Result) {
	if r.Interrupted {
		fmt.Fprintf(w, "\n⚠ Interrupted: the sweep was cancelled during %s; this result holds only the traces replayed before it (%d).\n", r.InterruptedDuring, len(r.Traces))
	}
	if r.Async {
		// A saved --async result read back with --from must still say
		// that its asynchronous caches were measured with extra room.
		fmt.Fprintln(w, "\nReplayed with --async: otter, theine and ristretto were not drained after each Set, so at small sizes they may have held more than their budget between maintenance runs.")
	}
	if r.Repeat > 1 {
		writeSpread(w, r)
	}
	if r.Sample != nil {
		fmt.Fprintln(w, "\nSampled: only the objects whose seeded hash fell under the rate's threshold were replayed, each cache given its capacity's budget on the whole trace times the rate (the entries in a column's head: whole trace→sample). ± is the standard error of a figure, in points, estimated from how the hits spread over the sampled objects; it leaves out the bias of a cache of a few entries standing for a large one.")
	}
	type key struct{ adapter, kind string }
	type note struct {
		cells  int
		traces map[string]bool
		first  string
	}
	notes := map[key]*note{}
	var order []key
	add := func(k key, trace, where, detail string) {
		n, ok := notes[k]
		if !ok {
			n = &note{traces: map[string]bool{}, first: where + ": " + detail}
			notes[k] = n
			order = append(order, k)
		}
		n.cells++
		n.traces[trace] = true
	}
	for ti := range r.Traces {
		t := &r.Traces[ti]
		for _, row := range t.Rows {
			where := t.Name + " at " + row.Capacity
			switch {
			case row.Unconfigurable != "":
				add(key{row.Adapter, "n/c (cannot be configured)"}, t.Name, where, row.Unconfigurable)
			case row.Failed != "":
				add(key{row.Adapter, "failed"}, t.Name, where, row.Failed)
			}
			for _, f := range row.Flags {
				add(key{row.Adapter, "* " + string(f.Kind)}, t.Name, where, f.Detail)
			}
		}
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, "\nFlagged (*), unconfigurable (n/c) and failed cells, by adapter:")
	for _, k := range order {
		n := notes[k]
		fmt.Fprintf(w, "- %s, %s: %d cells in %d traces; first %s\n", k.adapter, k.kind, n.cells, len(n.traces), n.first)
	}
}

// writeSpread says how far each adapter's replays of one cell lay apart
// (a result of Config.Repeat above 1): the largest spread over its cells,
// and where, or that every replay gave the same figure.
func writeSpread(w io.Writer, r *Result) {
	type spread struct {
		points float64
		where  string
	}
	worst := map[string]*spread{}
	var order []string
	for ti := range r.Traces {
		t := &r.Traces[ti]
		for _, row := range t.Rows {
			if len(row.Runs) < 2 {
				continue
			}
			sp, ok := worst[row.Adapter]
			if !ok {
				sp = &spread{}
				worst[row.Adapter] = sp
				order = append(order, row.Adapter)
			}
			if d := 100 * (slices.Max(row.Runs) - slices.Min(row.Runs)); d > sp.points {
				sp.points, sp.where = d, t.Name+" at "+row.Capacity
			}
		}
	}
	var varied, same []string
	for _, a := range order {
		if sp := worst[a]; sp.points > 0 {
			varied = append(varied, fmt.Sprintf("%s %.2f (%s)", a, sp.points, sp.where))
		} else {
			same = append(same, a)
		}
	}
	fmt.Fprintf(w, "\nEach adapter replayed every cell %d times (a fresh cache each time); a cell shows the replay with the median object hit ratio.", r.Repeat)
	if len(varied) > 0 {
		fmt.Fprintf(w, " Largest spread between the replays of one cell, in points: %s.", strings.Join(varied, ", "))
	}
	if len(same) > 0 {
		fmt.Fprintf(w, " Identical in every cell: %s.", strings.Join(same, ", "))
	}
	fmt.Fprintln(w)
}

// ChartData gives the chart package the curves of t, OPT first (drawn as
// the dashed reference; s3fifo and sieve get colours like the adapters,
// to be told apart). Cells without figures (n/c, failed) are left out of
// their curve.
func (t *TraceResult) ChartData() chart.HitRatioData {
	d := chart.HitRatioData{Trace: t.Name, Requests: t.Requests, Distinct: t.Distinct, Sized: t.Sized}
	for _, s := range t.BySeries() {
		c := chart.Curve{Name: s.Adapter, Reference: s.Adapter == OPTName}
		for _, r := range s.Rows {
			if !r.Ran() {
				continue
			}
			c.Capacity = append(c.Capacity, 100*r.Fraction)
			c.Object = append(c.Object, 100*r.HitRatio)
			c.Bytes = append(c.Bytes, 100*r.ByteHitRatio)
			c.Flagged = c.Flagged || len(r.Flags) > 0
		}
		if len(c.Capacity) > 0 {
			d.Curves = append(d.Curves, c)
		}
	}
	return d
}
