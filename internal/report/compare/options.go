package compare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cachebench/cachebench/internal/report"
)

// Thresholds are the minimum effects a command line sets: Time for costs
// (ns/op, latency percentiles), Rate for figures where higher is better
// (ops/s, hit ratios), and the absolute tolerances of the exact counts.
type Thresholds struct {
	Time, Rate         float64
	Allocs, BytesPerOp float64
}

// SelectMetrics turns a comma-separated list of metric names into specs
// with the thresholds that apply to each. Errors name the flag at fault.
func SelectMetrics(list string, thr Thresholds) ([]MetricSpec, error) {
	for name, v := range map[string]float64{"--allocs-tolerance": thr.Allocs, "--bytes-tolerance": thr.BytesPerOp} {
		if !(v >= 0) || v > 1e12 {
			return nil, fmt.Errorf("%s %v: must be a number >= 0", name, v)
		}
	}
	var out []MetricSpec
	seen := map[report.Metric]bool{}
	for _, name := range strings.Split(list, ",") {
		m := report.Metric(strings.TrimSpace(name))
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		spec, err := Spec(m)
		if err != nil {
			return nil, fmt.Errorf("--metrics: %w", err)
		}
		switch {
		case m == report.MetricAllocsPerOp:
			spec.Threshold = thr.Allocs
		case m == report.MetricBytesPerOp:
			spec.Threshold = thr.BytesPerOp
		case spec.Better == HigherIsBetter:
			spec.Threshold = thr.Rate
		default:
			spec.Threshold = thr.Time
		}
		out = append(out, spec)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--metrics %q selects no metric (valid: %s)", list, strings.Join(KnownMetrics(), ", "))
	}
	return out, nil
}

// MetricList joins metric names with commas, the form SelectMetrics reads.
func MetricList(ms []report.Metric) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	return strings.Join(s, ",")
}

// ParseThreshold reads "25%" or a fraction such as 0.25 given to flag. A
// bare number of 1 or more is refused: "25" might mean 25% or 2500%.
func ParseThreshold(flag, s string) (float64, error) {
	s = strings.TrimSpace(s)
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want a percentage such as 25%% or a fraction such as 0.25", flag, s)
	}
	if pct {
		v /= 100
	} else if v >= 1 {
		return 0, fmt.Errorf("%s %q: ambiguous; write %s%% or a fraction below 1", flag, s, s)
	}
	if !(v >= 0) || v > 100 {
		return 0, fmt.Errorf("%s %q: must be between 0%% and 10000%%", flag, s)
	}
	return v, nil
}
