package hitratio

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/cachebench/cachebench/internal/report/chart"
)

// Formats are the output formats of Write.
var Formats = []string{"text", "markdown", "json"}

// Write renders r in format ("text", "markdown" or "json").
func Write(w io.Writer, r *Result, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "markdown", "text":
		for i := range r.Traces {
			if err := writeTrace(w, &r.Traces[i], format == "markdown"); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown output format %q (valid: %s)", format, strings.Join(Formats, ", "))
}

// Series groups the rows of one adapter in capacity order.
type Series struct {
	Adapter string
	Rows    []Row
}

// Mean is the mean object hit ratio over the capacities.
func (s Series) Mean() float64 {
	sum := 0.0
	for _, r := range s.Rows {
		sum += r.HitRatio
	}
	return sum / float64(max(len(s.Rows), 1))
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

func writeTrace(w io.Writer, t *TraceResult, md bool) error {
	series := t.BySeries()
	if len(series) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n%s (%s): %d requests, %d objects, mean object %.0f B; an unbounded cache hits %.1f%%; read once at %.1fM requests/s, replay loop %.1fM requests/s\n\n",
		t.Name, t.Format, t.Requests, t.Distinct, t.MeanObjectSize(), 100*t.Infinite, t.NormalizePerSec/1e6, t.ReaderPerSec/1e6)
	head := []string{"object hit %"}
	for _, r := range series[0].Rows {
		head = append(head, fmt.Sprintf("%s (%d)", r.Capacity, r.Entries))
	}
	table(w, md, head, series, func(r Row) float64 { return r.HitRatio })
	if t.Sized {
		head[0] = "byte hit %"
		fmt.Fprintln(w)
		table(w, md, head, series, func(r Row) float64 { return r.ByteHitRatio })
	}
	var notes []string
	for _, s := range series {
		for _, r := range s.Rows {
			for _, f := range r.Flags {
				notes = append(notes, fmt.Sprintf("%s at %s: %s", r.Adapter, r.Capacity, f))
			}
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nFlags (*):")
		for _, n := range notes {
			fmt.Fprintln(w, "- "+n)
		}
	}
	return nil
}

func table(w io.Writer, md bool, head []string, series []Series, val func(Row) float64) {
	var tw *tabwriter.Writer
	if md {
		fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
		fmt.Fprintln(w, "|---"+strings.Repeat("|---:", len(head)-1)+"|")
	} else {
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	}
	for _, s := range series {
		cells := []string{s.Adapter}
		for _, r := range s.Rows {
			c := fmt.Sprintf("%.2f", 100*val(r))
			if len(r.Flags) > 0 {
				c += "*"
			}
			cells = append(cells, c)
		}
		if md {
			fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
		} else {
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
	}
	if tw != nil {
		tw.Flush()
	}
}

// ChartData gives the chart package the curves of t, OPT first.
func (t *TraceResult) ChartData() chart.HitRatioData {
	d := chart.HitRatioData{Trace: t.Name, Requests: t.Requests, Distinct: t.Distinct, Sized: t.Sized}
	for _, s := range t.BySeries() {
		c := chart.Curve{Name: s.Adapter, Reference: s.Adapter == OPTName}
		for _, r := range s.Rows {
			c.Capacity = append(c.Capacity, 100*r.Fraction)
			c.Object = append(c.Object, 100*r.HitRatio)
			c.Bytes = append(c.Bytes, 100*r.ByteHitRatio)
			c.Flagged = c.Flagged || len(r.Flags) > 0
		}
		d.Curves = append(d.Curves, c)
	}
	return d
}
