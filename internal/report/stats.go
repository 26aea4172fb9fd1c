package report

import (
	"math"
	"sort"
)

// Metric names one per-sample figure of a Measurement. The names double
// as the units of the gobench format, so a figure keeps one name
// everywhere (tables, gobench files, compare).
type Metric string

// Metrics of a Sample.
const (
	MetricNsPerOp     Metric = "ns/op"
	MetricOpsPerSec   Metric = "ops/s"
	MetricAllocsPerOp Metric = "allocs/op"
	MetricBytesPerOp  Metric = "B/op"
	// Hit ratios are fractions in [0,1]; they exist only for phases that
	// do lookups (Sample.HitRatio >= 0).
	MetricHitRatio     Metric = "hit-ratio"
	MetricHotHitRatio  Metric = "hot-hit-ratio"
	MetricColdHitRatio Metric = "cold-hit-ratio"
	// Latency percentiles in ns; they exist only when the sample holds
	// latency samples.
	MetricP50  Metric = "p50-ns"
	MetricP99  Metric = "p99-ns"
	MetricP999 Metric = "p99.9-ns"
	MetricMax  Metric = "max-ns"
	// Memory against the configured limit (fractions), for adapters that
	// report it after a get-or-set pass.
	MetricHeldRatio Metric = "held/limit"
	MetricRSSRatio  Metric = "rss/limit"
	// Counts per sample.
	MetricWrong  Metric = "wrong-values"
	MetricErrors Metric = "errors"
	MetricMisses Metric = "misses"
	// MetricNew is the adapter's constructor time (Sample.NewNs), on
	// the insert pass of insert-lookup.
	MetricNew Metric = "new-ns"
)

// Value returns the figure m of s, and false when s has no such figure
// (a hit ratio of -1, latency without samples, an unknown metric).
func (s Sample) Value(m Metric) (float64, bool) {
	switch m {
	case MetricNsPerOp:
		return s.NsPerOp, true
	case MetricOpsPerSec:
		return s.OpsPerSec, true
	case MetricAllocsPerOp:
		return s.AllocsPerOp, true
	case MetricBytesPerOp:
		return s.BytesPerOp, true
	case MetricHitRatio:
		return s.HitRatio, s.HitRatio >= 0
	case MetricHotHitRatio:
		return s.HotHitRatio, s.HotHitRatio >= 0
	case MetricColdHitRatio:
		return s.ColdHitRatio, s.ColdHitRatio >= 0
	case MetricP50:
		return s.Latency.P50, s.Latency.Samples > 0
	case MetricP99:
		return s.Latency.P99, s.Latency.Samples > 0
	case MetricP999:
		return s.Latency.P999, s.Latency.Samples > 0
	case MetricMax:
		return s.Latency.Max, s.Latency.Samples > 0
	case MetricHeldRatio:
		return float64(s.HeldBytes) / float64(s.LimitBytes), s.LimitBytes > 0 && s.HeldBytes > 0
	case MetricRSSRatio:
		return float64(s.RSSBytes) / float64(s.LimitBytes), s.LimitBytes > 0 && s.RSSBytes > 0
	case MetricWrong:
		return float64(s.Wrong), true
	case MetricErrors:
		return float64(s.Errors), true
	case MetricMisses:
		return float64(s.Misses), true
	case MetricNew:
		return s.NewNs, s.NewNs > 0
	}
	return 0, false
}

// Summary describes a set of values: count, mean, sample standard
// deviation (n-1 denominator; 0 when N < 2), median, minimum and maximum.
type Summary struct {
	N                int
	Mean, SD, Median float64
	Min, Max         float64
}

// Summarize computes the Summary of xs. It returns the zero Summary when
// xs is empty.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := Summary{N: len(xs), Min: xs[0], Max: xs[0]}
	var sum float64
	for _, x := range xs {
		sum += x
		s.Min = math.Min(s.Min, x)
		s.Max = math.Max(s.Max, x)
	}
	s.Mean = sum / float64(len(xs))
	if len(xs) > 1 {
		var sq float64
		for _, x := range xs {
			d := x - s.Mean
			sq += d * d
		}
		s.SD = math.Sqrt(sq / float64(len(xs)-1))
	}
	sorted := append([]float64(nil), xs...)
	sort.Float64s(sorted)
	if n := len(sorted); n%2 == 1 {
		s.Median = sorted[n/2]
	} else {
		s.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return s
}

// Values returns metric for every sample that has it, in sample order.
func (m Measurement) Values(metric Metric) []float64 {
	var out []float64
	for _, s := range m.Samples {
		if v, ok := s.Value(metric); ok {
			out = append(out, v)
		}
	}
	return out
}

// Stat summarises metric over m's samples; N is 0 when no sample has it.
func (m Measurement) Stat(metric Metric) Summary {
	return Summarize(m.Values(metric))
}

// Totals are counts summed over a measurement's samples.
type Totals struct {
	Ops, Hits, Misses, Wrong, Errors int64
}

// Totals sums the counts of m's samples.
func (m Measurement) Totals() Totals {
	var t Totals
	for _, s := range m.Samples {
		t.Ops += s.Ops
		t.Hits += s.Hits
		t.Misses += s.Misses
		t.Wrong += s.Wrong
		t.Errors += s.Errors
	}
	return t
}

// HitRatio is the hit ratio over all of m's samples, weighted by their
// lookups (total hits / total lookups), and false when m did no lookups.
func (m Measurement) HitRatio() (float64, bool) {
	t := m.Totals()
	if t.Hits+t.Misses == 0 {
		return 0, false
	}
	return float64(t.Hits) / float64(t.Hits+t.Misses), true
}

// Flag returns m's flag called name, if m has it.
func (m Measurement) Flag(name FlagName) (Flag, bool) {
	for _, f := range m.Flags {
		if f.Name == name {
			return f, true
		}
	}
	return Flag{}, false
}
