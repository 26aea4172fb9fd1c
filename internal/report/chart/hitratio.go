package chart

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cachebench/cachebench/internal/workloads/hitratio"
)

// HitRatio writes the charts of one trace of a sweep into dir: object hit
// ratio against capacity (and byte hit ratio when the trace has sizes),
// one line per adapter, OPT dashed. Adapters with a flagged row (for
// example a cache that held more entries than its budget) carry a "*" in
// the legend. It returns the files written.
func HitRatio(t *hitratio.TraceResult, dir string) ([]string, error) {
	base := filepath.Join(dir, "hitratio-"+Slug(t.Name))
	var files []string
	kinds := []metric{{"", "object hit ratio (%)", func(r hitratio.Row) float64 { return r.HitRatio }}}
	if t.Sized {
		kinds = append(kinds, metric{"-bytes", "byte hit ratio (%)", func(r hitratio.Row) float64 { return r.ByteHitRatio }})
	}
	for _, k := range kinds {
		l := Lines{
			Title:  fmt.Sprintf("%s: %d requests, %d objects", t.Name, t.Requests, t.Distinct),
			XLabel: "cache capacity (% of distinct objects, log scale)", YLabel: k.label, LogX: true,
			YMin: 0, YMax: 100,
		}
		series := t.BySeries()
		var names []string
		for _, s := range series {
			names = append(names, s.Adapter)
		}
		style := styles(names)
		for _, s := range series {
			ser := Series{Name: s.Adapter, Reference: s.Adapter == hitratio.OPTName, Style: style[s.Adapter]}
			for _, r := range s.Rows {
				ser.X = append(ser.X, 100*r.Fraction)
				ser.Y = append(ser.Y, 100*k.val(r))
				if len(r.Flags) > 0 && !strings.HasSuffix(ser.Name, flagged) {
					ser.Name += flagged
				}
			}
			l.Series = append(l.Series, ser)
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

// flagged marks the legend entry of an adapter with a flagged row.
const flagged = " (flagged)"

// metric is one y value a hit-ratio chart can show.
type metric struct {
	suffix, label string
	val           func(hitratio.Row) float64
}

// Slug turns a name into a file-name part: letters, digits, '-' and '_'
// kept, everything else (dots, slashes, spaces) a '-'.
func Slug(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '-'
	}, name)
}
