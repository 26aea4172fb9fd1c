package chart

import (
	"fmt"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/cachebench/cachebench/internal/report"
)

// readPhase is the phase of a workload whose latency and throughput the
// charts of a run show: the lookups, or the mixed or get-or-set pass.
func readPhase(phase string) bool {
	return phase == report.PhaseLookup || phase == report.PhaseMixed || phase == report.PhaseGetOrSet
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
		if !readPhase(m.Phase) || len(m.Samples) == 0 {
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
		w := m.Workload + " " + m.Phase
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
// throughput against GOMAXPROCS. It returns the files written.
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
	return files, nil
}

func sortedAdapters(m map[string][]point) []string {
	names := make([]string, 0, len(m))
	for a, pts := range m {
		sort.Slice(pts, func(i, j int) bool { return pts[i].procs < pts[j].procs })
		names = append(names, a)
	}
	// Fastest median lookup first, as the tables rank them.
	sort.Slice(names, func(i, j int) bool { return m[names[i]][0].p50 < m[names[j]][0].p50 })
	return names
}

func latencyChart(w string, m map[string][]point, base string) ([]string, error) {
	names := sortedAdapters(m)
	procs := m[names[0]][0].procs
	p := newPlot(fmt.Sprintf("%s: sampled latency per operation, GOMAXPROCS %d", w, procs), "adapter", "latency (ns)")
	p.Legend.Left = false
	pcts := []struct {
		name string
		val  func(point) float64
	}{{"p50", func(pt point) float64 { return pt.p50 }}, {"p99", func(pt point) float64 { return pt.p99 }},
		{"p99.9", func(pt point) float64 { return pt.p999 }}}
	bw := vg.Points(12)
	for i, pc := range pcts {
		vals := make(plotter.Values, len(names))
		for j, a := range names {
			vals[j] = pc.val(m[a][0])
		}
		bars, err := plotter.NewBarChart(vals, bw)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", base, err)
		}
		bars.Color = palette[i]
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(i-1) * bw
		p.Add(bars)
		p.Legend.Add(pc.name, bars)
	}
	p.NominalX(names...)
	return Save(p, base)
}

func qpsChart(w string, m map[string][]point, base string) ([]string, error) {
	names := sortedAdapters(m)
	l := Lines{Title: w + ": throughput against GOMAXPROCS", XLabel: "GOMAXPROCS (one worker per proc)",
		YLabel: "throughput (million operations/s)"}
	multi := false
	for _, a := range names {
		s := Series{Name: a}
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
