package chart

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
)

// The charts of open-loop measurements (run --rate): per adapter, the
// corrected p50, p99 and p99.9 and the uncorrected p99 against the
// offered rate; per workload, the achieved rate against the offered one;
// and per offered rate, each adapter's p99 interval by interval, so that
// a stall shows as a spike at its time.

// openKey is one workload, phase and GOMAXPROCS value.
type openKey struct {
	workload string
	phase    report.Phase
	procs    int
}

func (k openKey) name() string {
	return fmt.Sprintf("%s %s procs%d", k.workload, k.phase, k.procs)
}

// openMeasurements groups r's open-loop measurements (not the floor
// probe's) by workload, phase and GOMAXPROCS, then adapter, rates
// ascending.
func openMeasurements(r *report.Result) (map[openKey]map[string][]*report.Measurement, []openKey) {
	out := map[openKey]map[string][]*report.Measurement{}
	var keys []openKey
	for i := range r.Measurements {
		m := &r.Measurements[i]
		if m.Rate <= 0 || len(m.Samples) == 0 || m.Adapter == engine.ProbeName {
			continue
		}
		k := openKey{m.Workload, m.Phase, m.Procs}
		if out[k] == nil {
			out[k] = map[string][]*report.Measurement{}
			keys = append(keys, k)
		}
		out[k][m.Adapter] = append(out[k][m.Adapter], m)
	}
	for _, byAdapter := range out {
		for _, ms := range byAdapter {
			sort.Slice(ms, func(i, j int) bool { return ms[i].Rate < ms[j].Rate })
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].name() < keys[j].name() })
	return out, keys
}

// mean is the mean over m's samples of f.
func mean(m *report.Measurement, f func(s *report.Sample) float64) float64 {
	var sum float64
	for i := range m.Samples {
		sum += f(&m.Samples[i])
	}
	return sum / float64(len(m.Samples))
}

// openCharts writes the open-loop charts of r into dir, named after
// prefix, and returns the files written.
func openCharts(r *report.Result, dir, prefix string) ([]string, error) {
	data, keys := openMeasurements(r)
	var files []string
	for _, k := range keys {
		base := filepath.Join(dir, prefix+"-"+Slug(k.name()))
		names := make([]string, 0, len(data[k]))
		for a := range data[k] {
			names = append(names, a)
		}
		sort.Strings(names)
		style := styles(names)
		for _, a := range names {
			out, err := rateLatencyChart(k, a, data[k][a], base+"-open-"+Slug(a))
			files = append(files, out...)
			if err != nil {
				return files, err
			}
		}
		out, err := achievedChart(k, names, data[k], style, base+"-open-achieved")
		files = append(files, out...)
		if err != nil {
			return files, err
		}
		out, err = seriesCharts(k, names, data[k], style, base+"-open-series")
		files = append(files, out...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// rateLatencyChart draws one adapter's percentiles against the offered
// rate, both axes logarithmic.
func rateLatencyChart(k openKey, adapter string, ms []*report.Measurement, base string) ([]string, error) {
	l := Lines{Title: fmt.Sprintf("%s, %s, GOMAXPROCS %d: latency against offered rate", adapter, k.workload, k.procs),
		XLabel: "offered rate (operations/s, log scale)", YLabel: "latency (ns, log scale)", LogX: true, LogY: true}
	for i, pc := range []struct {
		name string
		val  func(s *report.Sample) float64
	}{
		{"p50 corrected", func(s *report.Sample) float64 { return s.Latency.P50 }},
		{"p99 corrected", func(s *report.Sample) float64 { return s.Latency.P99 }},
		{"p99.9 corrected", func(s *report.Sample) float64 { return s.Latency.P999 }},
		{"p99 uncorrected", func(s *report.Sample) float64 {
			if s.Open == nil {
				return math.NaN()
			}
			return s.Open.Uncorrected.P99
		}},
	} {
		s := Series{Name: pc.name, Style: i, Reference: i == 3}
		for _, m := range ms {
			v := mean(m, pc.val)
			if math.IsNaN(v) {
				continue
			}
			s.X = append(s.X, m.Rate)
			s.Y = append(s.Y, max(v, 1))
		}
		l.Series = append(l.Series, s)
	}
	if sat := saturatedRates(ms); sat != "" {
		l.Title += " (saturated at " + sat + ")"
	}
	p, err := l.Plot()
	if err != nil {
		return nil, err
	}
	return Save(p, base)
}

// saturatedRates lists the offered rates at which ms were saturated.
func saturatedRates(ms []*report.Measurement) string {
	out := ""
	for _, m := range ms {
		if _, ok := report.SaturatedFlag(m); ok {
			if out != "" {
				out += ", "
			}
			out += humanNs(m.Rate) + "/s"
		}
	}
	return out
}

// achievedChart draws every adapter's achieved rate against the offered
// one, with the line achieved = offered for reference.
func achievedChart(k openKey, names []string, data map[string][]*report.Measurement, style map[string]int, base string) ([]string, error) {
	l := Lines{Title: fmt.Sprintf("%s, GOMAXPROCS %d: achieved against offered rate", k.workload, k.procs),
		XLabel: "offered rate (operations/s, log scale)", YLabel: "achieved rate (operations/s, log scale)", LogX: true, LogY: true}
	ref := Series{Name: "achieved = offered", Reference: true}
	seen := map[float64]bool{}
	for _, a := range names {
		s := Series{Name: a, Style: style[a]}
		for _, m := range data[a] {
			s.X = append(s.X, m.Rate)
			s.Y = append(s.Y, max(mean(m, func(s *report.Sample) float64 {
				if s.Open == nil {
					return s.OpsPerSec
				}
				return s.Open.Achieved
			}), 1))
			if !seen[m.Rate] {
				seen[m.Rate] = true
				ref.X = append(ref.X, m.Rate)
			}
		}
		l.Series = append(l.Series, s)
	}
	sort.Float64s(ref.X)
	ref.Y = append(ref.Y, ref.X...)
	l.Series = append(l.Series, ref)
	p, err := l.Plot()
	if err != nil {
		return nil, err
	}
	return Save(p, base)
}

// seriesCharts draws, for each offered rate, every adapter's corrected
// p99 interval by interval (of its first repetition).
func seriesCharts(k openKey, names []string, data map[string][]*report.Measurement, style map[string]int, base string) ([]string, error) {
	byRate := map[float64][]Series{}
	var rates []float64
	for _, a := range names {
		for _, m := range data[a] {
			o := m.Samples[0].Open
			if o == nil || len(o.Series) == 0 {
				continue
			}
			s := Series{Name: a, Style: style[a]}
			for _, iv := range o.Series {
				if iv.Ops == 0 {
					continue
				}
				s.X = append(s.X, iv.StartS)
				s.Y = append(s.Y, max(iv.P99, 1))
			}
			if len(s.X) == 0 {
				continue
			}
			if _, ok := byRate[m.Rate]; !ok {
				rates = append(rates, m.Rate)
			}
			byRate[m.Rate] = append(byRate[m.Rate], s)
		}
	}
	sort.Float64s(rates)
	var files []string
	for _, rate := range rates {
		l := Lines{Title: fmt.Sprintf("%s, GOMAXPROCS %d: p99 per interval at %s/s", k.workload, k.procs, humanNs(rate)),
			XLabel: "interval start (s from the pass's start)", YLabel: "p99 latency (ns, log scale)", LogY: true, Series: byRate[rate], DenseX: true}
		p, err := l.Plot()
		if err != nil {
			return files, err
		}
		out, err := Save(p, fmt.Sprintf("%s-%s", base, Slug(humanNs(rate))))
		files = append(files, out...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// logYTicks puts 1-2-5 ticks on a log y axis over the values of ss.
func logYTicks(ss []Series) plot.ConstantTicks {
	lo, hi := math.Inf(1), 0.0
	for _, s := range ss {
		for _, y := range s.Y {
			lo, hi = min(lo, y), max(hi, y)
		}
	}
	if hi == 0 {
		return nil
	}
	return logTicks(lo, hi)
}
