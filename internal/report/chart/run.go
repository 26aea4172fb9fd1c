package chart

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
)

// readPhase is the phase of a workload whose latency and throughput the
// charts of a run show: the lookups, the mixed or get-or-set pass, or
// read-vector's reads.
func readPhase(phase report.Phase) bool {
	return phase == report.PhaseLookup || phase == report.PhaseMixed || phase == report.PhaseGetOrSet ||
		phase == report.PhaseReadVector
}

type point struct {
	procs               int
	qps, p50, p99, p999 float64
}

// collect averages the samples of each (workload, adapter, procs) of the
// read phases.
func collect(r *report.Result) map[string]map[string][]point {
	out := map[string]map[string][]point{}
	for _, m := range r.Measurements {
		// The floor probe is printed under each table; drawn beside the
		// caches its throughput (tens of millions/s) would flatten them.
		// Open-loop measurements have charts of their own (openloop.go).
		if !readPhase(m.Phase) || len(m.Samples) == 0 || m.Adapter == engine.ProbeName || m.Rate > 0 {
			continue
		}
		var pt point
		pt.procs = m.Procs
		for _, s := range m.Samples {
			pt.qps += s.OpsPerSec
			pt.p50 += s.Latency.P50
			pt.p99 += s.Latency.P99
			pt.p999 += s.Latency.P999
		}
		n := float64(len(m.Samples))
		pt.qps, pt.p50, pt.p99, pt.p999 = pt.qps/n, pt.p50/n, pt.p99/n, pt.p999/n
		w := m.Workload + " " + string(m.Phase)
		if out[w] == nil {
			out[w] = map[string][]point{}
		}
		out[w][m.Adapter] = append(out[w][m.Adapter], pt)
	}
	return out
}

// Run writes the charts of a `run` result into dir, named after prefix:
// per workload, the lookup latency percentiles per adapter at the lowest
// GOMAXPROCS, and, when the run used several GOMAXPROCS values, the
// throughput against GOMAXPROCS; and the charts of its open-loop
// measurements (openCharts). It returns the files written.
func Run(r *report.Result, dir, prefix string) ([]string, error) {
	var files []string
	data := collect(r)
	workloads := make([]string, 0, len(data))
	for w := range data {
		workloads = append(workloads, w)
	}
	sort.Strings(workloads)
	for _, w := range workloads {
		base := filepath.Join(dir, prefix+"-"+Slug(w))
		out, err := latencyChart(w, data[w], base+"-latency")
		files = append(files, out...)
		if err != nil {
			return files, err
		}
		out, err = qpsChart(w, data[w], base+"-qps")
		files = append(files, out...)
		if err != nil {
			return files, err
		}
	}
	out, err := openCharts(r, dir, prefix)
	return append(files, out...), err
}

func sortedAdapters(m map[string][]point) []string {
	names := make([]string, 0, len(m))
	for a, pts := range m {
		sort.Slice(pts, func(i, j int) bool { return pts[i].procs < pts[j].procs })
		names = append(names, a)
	}
	// Fastest median lookup first, as the tables rank them; ties (medians
	// read off the same histogram bucket) by name, so that rebuilding the
	// charts of an unchanged result rewrites the same files.
	sort.Slice(names, func(i, j int) bool {
		a, b := m[names[i]][0].p50, m[names[j]][0].p50
		return a < b || a == b && names[i] < names[j]
	})
	return names
}

func latencyChart(w string, m map[string][]point, base string) ([]string, error) {
	names := sortedAdapters(m)
	procs := m[names[0]][0].procs
	p := newPlot(fmt.Sprintf("%s: sampled latency per operation, GOMAXPROCS %d", w, procs), "adapter", "latency (ns, log scale)")
	pcts := []struct {
		name string
		val  func(point) float64
	}{{"p50", func(pt point) float64 { return pt.p50 }}, {"p99", func(pt point) float64 { return pt.p99 }},
		{"p99.9", func(pt point) float64 { return pt.p999 }}}
	lo, hi := math.Inf(1), 0.0
	for i, pc := range pcts {
		xys := make(plotter.XYs, len(names))
		for j, a := range names {
			xys[j] = plotter.XY{X: float64(j), Y: max(pc.val(m[a][0]), 1)}
			lo, hi = min(lo, xys[j].Y), max(hi, xys[j].Y)
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", base, err)
		}
		sc.Color = palette[i]
		sc.Shape = plotutil.Shape(i + 1)
		sc.Radius = vg.Points(6)
		p.Add(sc)
		p.Legend.Add(pc.name, sc)
	}
	p.NominalX(names...)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks(lo, hi)
	p.Y.Min, p.Y.Max = lo/1.3, hi*1.3
	return Save(p, base)
}

// logTicks labels 1-2-5 steps between lo and hi: a log axis otherwise
// labels only powers of ten, often one or two in a latency range.
func logTicks(lo, hi float64) plot.ConstantTicks {
	var t plot.ConstantTicks
	for dec := math.Pow(10, math.Floor(math.Log10(lo))); dec <= hi*10; dec *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if v := m * dec; v >= lo/1.3 && v <= hi*1.3 {
				t = append(t, plot.Tick{Value: v, Label: humanNs(v)})
			}
		}
	}
	return t
}

func humanNs(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func qpsChart(w string, m map[string][]point, base string) ([]string, error) {
	names := sortedAdapters(m)
	l := Lines{Title: w + ": throughput against GOMAXPROCS", XLabel: "GOMAXPROCS (one worker per proc)",
		YLabel: "throughput (million operations/s)", YFromZero: true}
	multi := false
	style := styles(names)
	for _, a := range names {
		s := Series{Name: a, Style: style[a]}
		for _, pt := range m[a] {
			s.X = append(s.X, float64(pt.procs))
			s.Y = append(s.Y, pt.qps/1e6)
		}
		multi = multi || len(s.X) > 1
		l.Series = append(l.Series, s)
	}
	if !multi {
		return nil, nil
	}
	p, err := l.Plot()
	if err != nil {
		return nil, err
	}
	return Save(p, base)
}
