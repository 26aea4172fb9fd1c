package report

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// The open loop (run --rate). A closed loop sends each worker's next
// operation when the last one returns, so during a stall it sends nothing
// and the operations that would have waited are never timed: its
// percentiles understate what a service with a fixed arrival rate sees
// (coordinated omission). An open loop gives every operation an intended
// start on a schedule fixed before the pass, sends it then (or at once,
// if the worker is behind), and times it from that intended start
// (corrected) as well as from its actual start (uncorrected).

// Arrival processes of an open loop.
const (
	// ArrivalsUniform spaces each worker's operations evenly.
	ArrivalsUniform = "uniform"
	// ArrivalsPoisson draws the gaps between operations from an
	// exponential distribution of the same mean (a Poisson process).
	ArrivalsPoisson = "poisson"
)

// SaturatedBelow is the fraction of its offered rate an open-loop pass
// must achieve not to be flagged saturated (FlagSaturated).
const SaturatedBelow = 0.9

// OpenLoop is what one open-loop pass measured beyond a closed loop's
// figures.
type OpenLoop struct {
	// Offered is the rate asked for and Achieved the rate run, in
	// operations per second across all workers: operations over the
	// pass's wall time.
	Offered  float64 `json:"offered_ops_per_sec"`
	Achieved float64 `json:"achieved_ops_per_sec"`
	// Uncorrected is the latency from each operation's actual start (what
	// a closed loop would report for the same operations). The sample's
	// Latency holds the corrected one, from the intended start.
	Uncorrected Latency `json:"uncorrected"`
	// MaxBacklog is the most operations that were due and not yet sent
	// at one time in any worker, and MaxLagNs the longest time an
	// operation was sent after its intended start: a worker that falls
	// behind sends its due operations at once and skips none.
	MaxBacklog int64   `json:"max_backlog"`
	MaxLagNs   float64 `json:"max_lag_ns"`
	// GCCycles counts the garbage collections that ran during the pass,
	// natural and forced, and ForcedGCs those forced (run --gc-every).
	GCCycles  int64 `json:"gc_cycles"`
	ForcedGCs int64 `json:"forced_gcs,omitempty"`
	// Series is the pass cut into intervals of IntervalNs by intended
	// start: a stall shows as a spike at its time.
	IntervalNs float64    `json:"interval_ns"`
	Series     []Interval `json:"series,omitempty"`
	// CorrectedHist and UncorrectedHist are the whole histograms
	// (nanoseconds) in HdrHistogram's compressed, base64 encoding, for
	// the .hgrm export (run --hgrm, WriteHgrm).
	CorrectedHist   string `json:"corrected_hist,omitempty"`
	UncorrectedHist string `json:"uncorrected_hist,omitempty"`
}

// Saturated reports whether the pass fell below SaturatedBelow of its
// offered rate.
func (o *OpenLoop) Saturated() bool {
	return o != nil && o.Offered > 0 && o.Achieved < SaturatedBelow*o.Offered
}

// Interval is one interval of an open-loop pass: the operations whose
// intended start fell in it and their corrected latency percentiles.
type Interval struct {
	// StartS is the interval's start, in seconds from the pass's start.
	StartS float64 `json:"start_s"`
	Ops    int64   `json:"ops"`
	P50    float64 `json:"p50_ns"`
	P99    float64 `json:"p99_ns"`
	Max    float64 `json:"max_ns"`
}

// SLO is a latency objective: a percentile (50, 99 or 99.9) of the
// corrected latency at or below a bound.
type SLO struct {
	Percentile float64  `json:"percentile"`
	Max        Duration `json:"max"`
}

// sloMetrics are the percentiles an SLO may name, by the name it uses.
var sloMetrics = map[string]float64{"p50": 50, "p99": 99, "p99.9": 99.9}

// ParseSLO reads an objective such as "p99=1ms" or "p99.9=250us".
func ParseSLO(s string) (SLO, error) {
	name, bound, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		return SLO{}, fmt.Errorf("slo %q: want PERCENTILE=DURATION, such as p99=1ms", s)
	}
	p, ok := sloMetrics[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return SLO{}, fmt.Errorf("slo %q: percentile %q is not one of p50, p99, p99.9", s, name)
	}
	d, err := time.ParseDuration(strings.TrimSpace(bound))
	if err != nil || d <= 0 {
		return SLO{}, fmt.Errorf("slo %q: %q is not a positive duration such as 1ms or 250us", s, bound)
	}
	return SLO{Percentile: p, Max: Duration(d)}, nil
}

// String writes the objective as ParseSLO reads it.
func (o SLO) String() string {
	name := "p99"
	for n, p := range sloMetrics {
		if p == o.Percentile {
			name = n
		}
	}
	return name + "=" + time.Duration(o.Max).String()
}

// metric is the Metric of the objective's percentile.
func (o SLO) metric() Metric {
	switch o.Percentile {
	case 50:
		return MetricP50
	case 99.9:
		return MetricP999
	}
	return MetricP99
}

// Met reports whether m, an open-loop measurement, meets the objective:
// not saturated, and the mean over its repetitions of the percentile at
// or below the bound.
func (o SLO) Met(m *Measurement) bool {
	if m.Rate <= 0 || m.saturated() {
		return false
	}
	st := m.Stat(o.metric())
	return st.N > 0 && !math.IsNaN(st.Mean) && st.Mean <= float64(time.Duration(o.Max).Nanoseconds())
}

// saturated reports whether any repetition of m was saturated.
func (m *Measurement) saturated() bool {
	for i := range m.Samples {
		if m.Samples[i].Open.Saturated() {
			return true
		}
	}
	return false
}

// SaturatedFlag is the flag of an open-loop measurement that fell below
// SaturatedBelow of its offered rate in some repetition (the lowest
// achieved percentage as its count), or false.
func SaturatedFlag(m *Measurement) (Flag, bool) {
	lowest := math.Inf(1)
	for i := range m.Samples {
		if o := m.Samples[i].Open; o.Saturated() {
			lowest = min(lowest, o.Achieved/o.Offered)
		}
	}
	if math.IsInf(lowest, 1) {
		return Flag{}, false
	}
	return CountedFlag(FlagSaturated, int64(math.Floor(100*lowest))), true
}
