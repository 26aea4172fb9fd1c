package chart

import (
	"fmt"
	"path/filepath"

	"github.com/cachebench/cachebench/internal/report"
)

// Curve is one adapter's hit ratios at increasing capacities.
type Curve struct {
	Name string
	// Reference marks the optimal policy (drawn black and dashed).
	Reference bool
	// Flagged adds "(flagged)" to the legend: some point of the curve
	// was flagged (over budget, failed sets, wrong values).
	Flagged bool
	// Capacity is in percent of the distinct objects; Object and Bytes
	// are the object and byte hit ratios in percent.
	Capacity, Object, Bytes []float64
}

// HitRatioData is what the hit-ratio charts of one trace show. The chart
// package knows nothing of the lab that measures it; the lab fills this.
type HitRatioData struct {
	Trace    string
	Requests int64
	Distinct int
	Sized    bool // draw the byte hit ratio chart too
	Curves   []Curve
}

// flagged marks the legend entry of an adapter with a flagged point.
const flagged = " (flagged)"

// HitRatio writes the charts of one trace into dir: object hit ratio
// against capacity (and byte hit ratio when the trace has sizes), one line
// per adapter, the reference dashed. It returns the files written.
func HitRatio(d HitRatioData, dir string) ([]string, error) {
	base := filepath.Join(dir, "hitratio-"+Slug(d.Trace))
	var names []string
	for _, c := range d.Curves {
		names = append(names, c.Name)
	}
	style := styles(names)
	kinds := []metric{{"", "object hit ratio (%)", func(c Curve) []float64 { return c.Object }}}
	if d.Sized {
		kinds = append(kinds, metric{"-bytes", "byte hit ratio (%)", func(c Curve) []float64 { return c.Bytes }})
	}
	var files []string
	for _, k := range kinds {
		l := Lines{
			Title:  fmt.Sprintf("%s: %d requests, %d objects", d.Trace, d.Requests, d.Distinct),
			XLabel: "cache capacity (% of distinct objects, log scale)", YLabel: k.label, LogX: true,
			YMin: 0, YMax: 100,
		}
		for _, c := range d.Curves {
			name := c.Name
			if c.Flagged {
				name += flagged
			}
			l.Series = append(l.Series, Series{Name: name, X: c.Capacity, Y: k.val(c), Reference: c.Reference, Style: style[c.Name]})
		}
		p, err := l.Plot()
		if err != nil {
			return files, err
		}
		out, err := Save(p, base+k.suffix)
		files = append(files, out...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// metric is one y value a hit-ratio chart can show.
type metric struct {
	suffix, label string
	val           func(Curve) []float64
}

// Slug turns a name into a file-name part (report.Slug).
func Slug(name string) string { return report.Slug(name) }
