package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/report/compare"
)

// compareFlags are the flags of `cachebench compare`.
type compareFlags struct {
	format          string
	alpha           float64
	threshold       string
	thresholdTime   string
	thresholdRate   string
	allocsTolerance float64
	bytesTolerance  float64
	minSamples      int
	normalize       string
	metrics         string
}

func newCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two results and fail on a significant regression (exit 1)",
		Long: `compare reads two results (cachebench JSON or the gobench text format, sniffed)
and compares every measurement they share (same adapter, workload, phase, procs and
keys), metric by metric, in a benchstat-like table.

Noisy metrics (ns/op, ops/s, latency percentiles, hit ratios) are compared with a
Mann-Whitney U test at --alpha; a difference counts only when it is significant AND
at least the minimum effect (--threshold, or --threshold-time / --threshold-throughput).
"~" marks no significant difference. The effect is judged on the cost ratio, so a
25% slowdown reads as +25% ns/op and -20% ops/s and both cross a 25% threshold alike.
allocs/op and B/op are compared exactly: any change of the mean beyond float
rounding counts, unless it is within --allocs-tolerance / --bytes-tolerance plus
the spread of the values within one run (0 for a deterministic count; a count that
varies between repetitions of one run, such as sync.Map's allocations, cannot be
held more exactly than that). Lower is better
for times, allocations and bytes, higher for ops/s and hit ratios; a significant
improvement is reported as such and is not a failure. Problems that NEW flags and
OLD did not (wrong values, errors, lost entries) and adapter errors new in NEW are
regressions too.

--normalize ADAPTER divides, in each file, every noisy figure of every adapter by
ADAPTER's figure from the same repetition of the same workload, phase and procs
(the runner interleaves adapters, so those ran side by side): a slower or busier
machine slows both and leaves the ratio alone. allocs/op and B/op are never
normalised. Use it when OLD and NEW come from different machines or times.

Exit status: 0 no regression, 1 regression (the table is printed first), 2 bad
input (missing or unreadable file, nothing in common, fewer than --min-samples
repetitions, a reference adapter missing).`,
		Example: `  cachebench run --count 10 --format json -o old.json
  # ... change the code ...
  cachebench run --count 10 --format json -o new.json
  cachebench compare old.json new.json
  cachebench compare --normalize fastcache --threshold 25% --min-samples 10 results/baseline/ci.json new.json
  cachebench compare --format markdown old.txt new.txt >> "$GITHUB_STEP_SUMMARY"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := f.options(cmd)
			if err != nil {
				return usageError{err}
			}
			if err := checkFormat(f.format, compare.Formats); err != nil {
				return usageError{err}
			}
			return runCompare(cmd.OutOrStdout(), args[0], args[1], opt, f.format)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "text", "output format: text, markdown or json")
	fl.Float64Var(&f.alpha, "alpha", compare.DefaultAlpha, "significance level of the Mann-Whitney U test")
	fl.StringVar(&f.threshold, "threshold", "5%", `minimum effect of a significant change in a noisy metric ("25%" or 0.25)`)
	fl.StringVar(&f.thresholdTime, "threshold-time", "", "minimum effect for ns/op and latency percentiles (default: --threshold)")
	fl.StringVar(&f.thresholdRate, "threshold-throughput", "", "minimum effect for ops/s and hit ratios (default: --threshold)")
	fl.Float64Var(&f.allocsTolerance, "allocs-tolerance", 0, "allocs/op: absolute change of the mean that is tolerated (0: exact)")
	fl.Float64Var(&f.bytesTolerance, "bytes-tolerance", 0, "B/op: absolute change of the mean that is tolerated (0: exact)")
	fl.IntVar(&f.minSamples, "min-samples", compare.DefaultMinSamples, "fewest repetitions per measurement (10 recommended for gating)")
	fl.StringVar(&f.normalize, "normalize", "", "reference adapter: compare noisy figures as ratios to it, repetition by repetition")
	fl.StringVar(&f.metrics, "metrics", joinMetrics(compare.DefaultMetricNames),
		"comma-separated metrics to compare (valid: "+strings.Join(compare.KnownMetrics(), ", ")+")")
	return cmd
}

func joinMetrics(ms []report.Metric) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	return strings.Join(s, ",")
}

// options turns the flags into compare.Options, naming the flag at fault.
func (f *compareFlags) options(cmd *cobra.Command) (compare.Options, error) {
	opt := compare.Options{Alpha: f.alpha, MinSamples: f.minSamples, Normalize: strings.TrimSpace(f.normalize)}
	if !(f.alpha > 0 && f.alpha < 1) {
		return opt, fmt.Errorf("--alpha %v: must be between 0 and 1", f.alpha)
	}
	if f.minSamples < 2 {
		return opt, fmt.Errorf("--min-samples %d: must be at least 2", f.minSamples)
	}
	thr, err := parseThreshold("--threshold", f.threshold)
	if err != nil {
		return opt, err
	}
	timeThr, rateThr := thr, thr
	if cmd.Flags().Changed("threshold-time") {
		if timeThr, err = parseThreshold("--threshold-time", f.thresholdTime); err != nil {
			return opt, err
		}
	}
	if cmd.Flags().Changed("threshold-throughput") {
		if rateThr, err = parseThreshold("--threshold-throughput", f.thresholdRate); err != nil {
			return opt, err
		}
	}
	for name, v := range map[string]float64{"--allocs-tolerance": f.allocsTolerance, "--bytes-tolerance": f.bytesTolerance} {
		if !(v >= 0) || v > 1e12 {
			return opt, fmt.Errorf("%s %v: must be a number >= 0", name, v)
		}
	}
	seen := map[report.Metric]bool{}
	for _, name := range strings.Split(f.metrics, ",") {
		m := report.Metric(strings.TrimSpace(name))
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		spec, err := compare.Spec(m)
		if err != nil {
			return opt, fmt.Errorf("--metrics: %w", err)
		}
		switch {
		case m == report.MetricAllocsPerOp:
			spec.Threshold = f.allocsTolerance
		case m == report.MetricBytesPerOp:
			spec.Threshold = f.bytesTolerance
		case spec.Better == compare.HigherIsBetter:
			spec.Threshold = rateThr
		default:
			spec.Threshold = timeThr
		}
		opt.Metrics = append(opt.Metrics, spec)
	}
	if len(opt.Metrics) == 0 {
		return opt, fmt.Errorf("--metrics %q selects no metric (valid: %s)", f.metrics, strings.Join(compare.KnownMetrics(), ", "))
	}
	return opt, nil
}

// parseThreshold reads "25%" or a fraction such as 0.25. A bare number of
// 1 or more is refused: "25" might mean 25% or 2500%.
func parseThreshold(flag, s string) (float64, error) {
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

// runCompare reads both files, compares and prints; a regression is
// returned as a *compare.RegressionError (exit 1) after the table.
func runCompare(stdout io.Writer, oldPath, newPath string, opt compare.Options, format string) error {
	oldRes, err := report.ReadResultFile(oldPath)
	if err != nil {
		return usageErrorf("compare: OLD: %w", err)
	}
	newRes, err := report.ReadResultFile(newPath)
	if err != nil {
		return usageErrorf("compare: NEW: %w", err)
	}
	rep, err := compare.Compare(oldRes, newRes, opt)
	if err != nil {
		return usageErrorf("compare %s %s: %w", oldPath, newPath, err)
	}
	rep.OldName, rep.NewName = oldPath, newPath
	if err := compare.Write(stdout, rep, format); err != nil {
		return err
	}
	if n := rep.Regressions(); n > 0 {
		return &compare.RegressionError{N: n}
	}
	return nil
}
