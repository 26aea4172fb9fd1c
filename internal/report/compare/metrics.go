package compare

import (
	"fmt"
	"strings"

	"github.com/cachebench/cachebench/internal/report"
)

// Direction says which way a metric improves.
type Direction int

// Directions.
const (
	LowerIsBetter Direction = iota
	HigherIsBetter
)

// MetricSpec says how one metric is compared.
type MetricSpec struct {
	Metric report.Metric
	Better Direction
	// Exact metrics are deterministic counts: their means are compared
	// directly, without a significance test, and any difference beyond
	// float rounding is a change, unless it is within Threshold (an
	// absolute amount in the metric's unit) plus the spread (max - min)
	// of the values within either run, for counts that are not quite
	// deterministic. They are never normalised.
	Exact bool
	// Threshold is, for a statistical metric, the minimum relative effect
	// (0.05 = 5%) a significant change must have to count; for an exact
	// metric, the absolute tolerance on the mean (0 = exact).
	Threshold float64
}

// Default thresholds (see Options).
const (
	DefaultAlpha      = 0.05
	DefaultThreshold  = 0.05
	DefaultMinSamples = 5
)

// knownMetrics lists the metrics compare understands, with their
// direction and mode. Thresholds are filled in by DefaultMetrics.
var knownMetrics = []MetricSpec{
	{Metric: report.MetricNsPerOp, Better: LowerIsBetter},
	{Metric: report.MetricOpsPerSec, Better: HigherIsBetter},
	{Metric: report.MetricAllocsPerOp, Better: LowerIsBetter, Exact: true},
	{Metric: report.MetricBytesPerOp, Better: LowerIsBetter, Exact: true},
	{Metric: report.MetricP50, Better: LowerIsBetter},
	{Metric: report.MetricP99, Better: LowerIsBetter},
	{Metric: report.MetricP999, Better: LowerIsBetter},
	{Metric: report.MetricHitRatio, Better: HigherIsBetter},
	{Metric: report.MetricHotHitRatio, Better: HigherIsBetter},
	{Metric: report.MetricColdHitRatio, Better: HigherIsBetter},
}

// DefaultMetricNames are the metrics compared unless told otherwise.
var DefaultMetricNames = []report.Metric{
	report.MetricNsPerOp, report.MetricOpsPerSec, report.MetricAllocsPerOp, report.MetricBytesPerOp,
}

// KnownMetrics returns the names of every metric compare can compare.
func KnownMetrics() []string {
	out := make([]string, len(knownMetrics))
	for i, s := range knownMetrics {
		out[i] = string(s.Metric)
	}
	return out
}

// Spec returns the comparison rule of metric with the default threshold
// (DefaultThreshold for statistical metrics, exact for counts).
func Spec(metric report.Metric) (MetricSpec, error) {
	for _, s := range knownMetrics {
		if s.Metric == metric {
			if !s.Exact {
				s.Threshold = DefaultThreshold
			}
			return s, nil
		}
	}
	return MetricSpec{}, fmt.Errorf("unknown metric %q (valid: %s)", metric, strings.Join(KnownMetrics(), ", "))
}
