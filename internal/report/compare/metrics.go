package compare

import (
	"fmt"
	"strings"

	"github.com/cachebench/cachebench/internal/report"
)

// Direction says which way a metric improves; report's table of units
// declares it for every unit.
type Direction = report.Direction

// Directions.
const (
	LowerIsBetter  = report.LowerIsBetter
	HigherIsBetter = report.HigherIsBetter
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

// knownMetrics lists the metrics compare understands, in the order
// KnownMetrics names them. Their direction and mode come from report's
// table of units (see specOf).
var knownMetrics = []report.Metric{
	report.MetricNsPerOp, report.MetricOpsPerSec, report.MetricAllocsPerOp, report.MetricBytesPerOp,
	report.MetricP50, report.MetricP99, report.MetricP999,
	report.MetricHitRatio, report.MetricHotHitRatio, report.MetricColdHitRatio,
}

// specOf is the comparison rule of metric as report's table of units
// declares it, with no threshold; false for a unit without a direction.
func specOf(metric report.Metric) (MetricSpec, bool) {
	u, ok := report.UnitOf(string(metric))
	if !ok {
		return MetricSpec{}, false
	}
	return MetricSpec{Metric: metric, Better: u.Better, Exact: u.Exact}, true
}

// DefaultMetricNames are the metrics compared unless told otherwise.
var DefaultMetricNames = []report.Metric{
	report.MetricNsPerOp, report.MetricOpsPerSec, report.MetricAllocsPerOp, report.MetricBytesPerOp,
}

// KnownMetrics returns the names of every metric compare can compare.
func KnownMetrics() []string {
	out := make([]string, len(knownMetrics))
	for i, m := range knownMetrics {
		out[i] = string(m)
	}
	return out
}

// Spec returns the comparison rule of metric with the default threshold
// (DefaultThreshold for statistical metrics, exact for counts).
func Spec(metric report.Metric) (MetricSpec, error) {
	for _, m := range knownMetrics {
		if s, ok := specOf(m); ok && m == metric {
			if !s.Exact {
				s.Threshold = DefaultThreshold
			}
			return s, nil
		}
	}
	return MetricSpec{}, fmt.Errorf("unknown metric %q (valid: %s)", metric, strings.Join(KnownMetrics(), ", "))
}
