package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/fileio"
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
	spread          float64
	metrics         string
}

func newCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two results and fail on a significant regression (exit 1)",
		Long:  compareLong,
		Example: `  cachebench run --count 10 --format json -o old.json
  # ... change the code ...
  cachebench run --count 10 --format json -o new.json
  cachebench compare old.json new.json
  # allocations against the committed CI baseline (they do not depend on the machine)
  cachebench run --adapters map,fastcache,freecache,bigcache,otter,syncmap,shardcache --keys 50000 --count 10 --no-floor --format json -o ci.json
  cachebench compare --metrics allocs/op,B/op --min-samples 10 results/baseline/ci-intel-r-xeon-r-processor.json ci.json
  cachebench compare --normalize fastcache --threshold 25% --format markdown old.json new.json >> "$GITHUB_STEP_SUMMARY"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := f.options(cmd)
			if err != nil {
				return usageError{err}
			}
			if err := checkFormat(f.format, compare.Formats); err != nil {
				return usageError{err}
			}
			return runCompare(cmd.Context(), cmd.OutOrStdout(), args[0], args[1], opt, f.format)
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
	fl.StringVar(&f.normalize, "normalize", "", `reference adapter: compare noisy figures as ratios to it, repetition by repetition ("none": absolute)`)
	fl.Float64Var(&f.spread, "spread-factor", 0, "raise the minimum effect to this many times a run's own spread (default: 1 with the default rule, else 0)")
	fl.StringVar(&f.metrics, "metrics", compare.MetricList(compare.DefaultMetricNames),
		"comma-separated metrics to compare (valid: "+strings.Join(compare.KnownMetrics(), ", ")+")")
	return cmd
}

// options turns the flags into compare.Options, naming the flag at fault.
func (f *compareFlags) options(cmd *cobra.Command) (compare.Options, error) {
	opt := compare.Options{Alpha: f.alpha, MinSamples: f.minSamples, Normalize: strings.TrimSpace(f.normalize), SpreadFactor: f.spread,
		Absolute: []string{engine.ProbeName}}
	if fl := cmd.Flags(); !fl.Changed("threshold") && !fl.Changed("normalize") && !fl.Changed("spread-factor") {
		opt.Normalize, opt.SpreadFactor = compare.AutoNormalize, -1 // the default rule
	}
	if opt.Normalize == "none" {
		opt.Normalize = ""
	}
	if !(f.spread >= 0) {
		return opt, fmt.Errorf("--spread-factor %v: must be >= 0", f.spread)
	}
	if !(f.alpha > 0 && f.alpha < 1) {
		return opt, fmt.Errorf("--alpha %v: must be between 0 and 1", f.alpha)
	}
	if err := report.CheckSamples(fmt.Sprintf("--min-samples %d at --alpha %g", f.minSamples, f.alpha), f.minSamples, f.minSamples, f.alpha); err != nil {
		return opt, err
	}
	thr, err := compare.ParseThreshold("--threshold", f.threshold)
	if err != nil {
		return opt, err
	}
	t := compare.Thresholds{Time: thr, Rate: thr, Allocs: f.allocsTolerance, BytesPerOp: f.bytesTolerance}
	if cmd.Flags().Changed("threshold-time") {
		if t.Time, err = compare.ParseThreshold("--threshold-time", f.thresholdTime); err != nil {
			return opt, err
		}
	}
	if cmd.Flags().Changed("threshold-throughput") {
		if t.Rate, err = compare.ParseThreshold("--threshold-throughput", f.thresholdRate); err != nil {
			return opt, err
		}
	}
	opt.Metrics, err = compare.SelectMetrics(f.metrics, t)
	return opt, err
}

// runCompare reads both files, compares and prints; a regression is
// returned as a *compare.RegressionError (exit 1) after the table.
func runCompare(ctx context.Context, stdout io.Writer, oldPath, newPath string, opt compare.Options, format string) error {
	oldRes, err := readResultFiles(ctx, "compare: OLD", []string{oldPath}, false)
	if err != nil {
		return err
	}
	newRes, err := readResultFiles(ctx, "compare: NEW", []string{newPath}, false)
	if err != nil {
		return err
	}
	// A partial result compares as "0 regressions": refused, saying why.
	if err := compare.CheckComplete(oldRes[0], newRes[0], opt); err != nil {
		return usageErrorf("compare %s %s: %w", oldPath, newPath, err)
	}
	rep, err := report.UntilDone(ctx, func() (*compare.Report, error) { return compare.Compare(oldRes[0], newRes[0], opt) })
	if ctx.Err() != nil {
		return fmt.Errorf("compare %s %s: %w", oldPath, newPath, ctx.Err())
	}
	if err != nil {
		return usageErrorf("compare %s %s: %w", oldPath, newPath, err)
	}
	if err := rep.CheckComparable(); err != nil {
		return usageErrorf("compare %s %s: %w", oldPath, newPath, err)
	}
	rep.OldName, rep.NewName = oldPath, newPath
	if err := compare.Write(fileio.CancelWriter(ctx, stdout), rep, format); err != nil {
		return err
	}
	if n := rep.Regressions(); n > 0 {
		return &compare.RegressionError{N: n}
	}
	return nil
}
