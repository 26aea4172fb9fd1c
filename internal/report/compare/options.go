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

// Options configures a comparison.
type Options struct {
	// Alpha is the significance level of the U test (default 0.05).
	Alpha float64
	// MinSamples is the fewest repetitions a measurement may have on
	// either side; fewer is an input error. It may not be below
	// report.MinSamples(Alpha) (4 at 0.05), with which the U test cannot
	// reach significance at all; 10 is recommended for gating.
	MinSamples int
	// Metrics lists what is compared, in table order.
	Metrics []MetricSpec
	// Normalize names a reference adapter; when set, every statistical
	// metric of every other adapter is divided, sample by sample, by the
	// reference's value in the same repetition of the same run.
	Normalize string
	// Absolute lists adapters compared on absolute figures even when
	// Normalize is set: the harness-floor probe, whose time is the CPU's
	// alone. Divided by a memory-bound reference it would take on the
	// reference's drift and raise false alarms.
	Absolute []string
	// SpreadFactor, when positive, raises a noisy metric's minimum effect
	// to SpreadFactor × the larger relative spread of the two sides
	// (2 × interquartile range / median within one run) when that is
	// above the metric's threshold: a difference the runs' own
	// repetitions span is not called a change.
	SpreadFactor float64
	// ExactRelTolerance is a relative tolerance added to the exact
	// metrics' (allocs/op, B/op) thresholds: some adapters' allocation
	// counts differ slightly from process to process (ristretto's)
	// though each is constant within a run.
	ExactRelTolerance float64
	// Rule, when set, is how the options were chosen, printed with the
	// comparison (e.g. which defaults applied).
	Rule string
}

// DefaultExactRelTolerance is the ExactRelTolerance of the default rule.
const DefaultExactRelTolerance = 0.05

// DefaultReference is the reference adapter compare normalises to by
// default when both results hold it: its hash has no per-process seed
// and its memory is off-heap, so its times move with the machine and
// little else.
const DefaultReference = "fastcache"

// DefaultSpreadFactor is the default Options.SpreadFactor.
const DefaultSpreadFactor = 1.0

// AutoNormalize as Options.Normalize, and a negative SpreadFactor, ask
// Compare for the defaults that keep a first comparison of two runs of the
// same code quiet: normalise to DefaultReference when both results hold
// it, and raise the minimum effect to the runs' own spread. Two
// back-to-back runs of one binary differ by more than 5% in many figures
// (process layout, a busy machine), which a fixed 5% minimum effect
// reported as regressions.
const AutoNormalize = "auto"

// resolveDefaults replaces the AutoNormalize and negative SpreadFactor
// requests by what they mean for these two results, and says in Rule
// which rule applied.
func resolveDefaults(opt Options, oldRes, newRes *report.Result) Options {
	var rule []string
	if opt.Normalize == AutoNormalize {
		opt.Normalize = ""
		if HasAdapter(oldRes, DefaultReference) && HasAdapter(newRes, DefaultReference) {
			opt.Normalize = DefaultReference
			rule = append(rule, "times and rates normalised to "+DefaultReference+" (present in both runs; batched lookups to its lookup, other phases it lacks on absolute figures)")
		} else {
			rule = append(rule, "absolute times ("+DefaultReference+", the default reference, is not in both runs)")
		}
	}
	if opt.SpreadFactor < 0 {
		opt.SpreadFactor = DefaultSpreadFactor
		opt.ExactRelTolerance = DefaultExactRelTolerance
		rule = append(rule, "minimum effect raised to the runs' own spread", "allocs/op and B/op within 5%")
	}
	switch {
	case opt.Rule != "":
	case len(rule) > 0:
		opt.Rule = "defaults: " + strings.Join(rule, "; ") + " (--threshold, --normalize or --spread-factor choose otherwise)"
	default:
		opt.Rule = "as set on the command line"
	}
	if opt.Normalize != "" {
		var abs []string
		for _, a := range opt.Absolute {
			if a != opt.Normalize && HasAdapter(oldRes, a) && HasAdapter(newRes, a) {
				abs = append(abs, a)
			}
		}
		if len(abs) > 0 {
			opt.Rule += "; " + strings.Join(abs, ", ") + " compared on absolute figures (a probe of the harness's own cost: its time does not move with the reference's)"
		}
	}
	return opt
}

// HasAdapter reports whether r holds measurements of adapter.
func HasAdapter(r *report.Result, adapter string) bool {
	for _, m := range r.Measurements {
		if m.Adapter == adapter {
			return true
		}
	}
	return false
}

// DefaultOptions returns the defaults: alpha 0.05, at least 5
// samples, ns/op and ops/s with a 5% minimum effect, allocs/op and B/op
// exact.
func DefaultOptions() Options {
	o := Options{Alpha: DefaultAlpha, MinSamples: DefaultMinSamples}
	for _, m := range DefaultMetricNames {
		s, _ := Spec(m)
		o.Metrics = append(o.Metrics, s)
	}
	return o
}
