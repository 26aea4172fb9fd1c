package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cachebench/cachebench/internal/fit"
	"github.com/cachebench/cachebench/internal/gate"
	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/report/compare"
)

func newGateCmd() *cobra.Command {
	var (
		o                          gate.Options
		threshold, format, summary string
		output                     string
	)
	cmd := &cobra.Command{
		Use:   "gate [flags] PACKAGE",
		Short: "Build the base and the new revision, run the suite with both, fail on a regression (exit 1)",
		Long: `gate is a regression gate for pull requests. It checks out the base revision and
the new one in git worktrees of their own, builds PACKAGE (a main package calling
cachebench.Main, such as ./cmd/cachebench) in each, and runs the same quick suite
with both binaries: --count repetitions per side spread over --processes
processes, the two binaries' processes alternating, merged per side.

Times and rates are compared as ratios to the --reference adapter measured in the
same repetition, with a Mann-Whitney U test and a minimum effect (--threshold):
absolute times drift between machines and runs by more than that, ratios do not.
allocs/op and B/op are compared exactly, with the base revision and with every
--baseline file. A regression against the base revision is confirmed by a second,
fresh set of runs before the gate fails. Two revisions that build the same binary
(a change to results or docs) are not timed against each other: only the
baselines are compared.

The gate builds commits, so uncommitted changes to tracked files would not be
measured: a working tree holding any is refused unless --allow-dirty is given.
At least 4 repetitions per side (--count) are needed: with fewer no difference
can reach p < 0.05, and every change would pass.

Before anything is built, the suite's flags (--adapters, --workload, --keys,
--count) are checked as run checks them, with this binary's adapters: a
program of your own with adapters of its own runs its own gate
(yourcachebench gate).

Exit codes: 0 no regression, 1 a confirmed regression, 2 the gate could not
decide (bad flags, no git, a revision that does not exist, a package that does
not build, a suite that does not run). The verdict and the tables go to stdout (--format
markdown for a CI job summary, or --summary FILE to append it there), progress
to stderr.`,
		Example: `  cachebench gate --base origin/main ./cmd/cachebench
  cachebench gate --base "$BASE_SHA" --baseline 'results/baseline/ci*.json' --summary "$GITHUB_STEP_SUMMARY" ./cmd/cachebench
  yourcachebench gate --base origin/main --adapters yourcache,fastcache ./cmd/yourcachebench`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Package = args[0]
			if err := checkFormat(format, gate.Formats); err != nil {
				return usageError{err}
			}
			thr, err := compare.ParseThreshold("--threshold", threshold)
			if err != nil {
				return usageError{err}
			}
			if thr == 0 {
				// gate.Options reads a zero Threshold as unset and puts
				// its default (25%) in its place: "0" would silently be
				// the default, the opposite of what was asked.
				return usageErrorf("--threshold %q: must be above 0", threshold)
			}
			o.Threshold = thr
			// The gate's own floor first: run's check would refuse 0
			// with its range 1..1000 and let 1 pass.
			if err := gate.CheckCount(o.Count); err != nil {
				return usageError{err}
			}
			if err := checkSuite(o); err != nil {
				return err
			}
			if o.Baselines, err = expandGlobs(o.Baselines); err != nil {
				return usageErrorf("gate: --baseline: %w", err)
			}
			for flag, path := range map[string]string{"-o": output, "--summary": summary} {
				if path != "" {
					if err := report.CheckWritable(path); err != nil {
						return usageErrorf("gate: %s: %w", flag, err)
					}
				}
			}
			o.Log = cmd.ErrOrStderr()
			res, err := gate.Run(cmd.Context(), o)
			if errors.Is(err, gate.ErrInput) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			if err := gate.Write(cmd.OutOrStdout(), res, format); err != nil {
				return err
			}
			if summary != "" {
				if err := appendSummary(summary, res); err != nil {
					return err
				}
			}
			if output != "" {
				if _, err := writeResult(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), output, "json", res.NewResults); err != nil {
					return err
				}
			}
			if n := res.Regressions(); n > 0 {
				return &compare.RegressionError{N: n}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Base, "base", "HEAD~1", `base revision ("none": no time comparison, only the baselines)`)
	fl.StringVar(&o.New, "new", "HEAD", "new revision")
	fl.StringVar(&o.Dir, "dir", ".", "a directory in the git repository; PACKAGE is relative to it")
	fl.StringVar(&o.Adapters, "adapters", gate.DefaultAdapters, "adapters of the suite (must include --reference; names this binary knows)")
	fl.StringVar(&o.Workload, "workload", gate.DefaultWorkload, "workload of the suite")
	fl.Var(parse.NewCountValue(&o.Keys, gate.DefaultKeys), "keys", "keys of the suite")
	fl.IntVar(&o.Count, "count", gate.DefaultCount, "repetitions per side")
	fl.IntVar(&o.Processes, "processes", 0, "processes per side the repetitions are spread over (default: --count, one repetition each)")
	fl.StringVar(&o.Reference, "reference", gate.DefaultReference, "adapter times and rates are divided by, repetition by repetition")
	fl.StringVar(&threshold, "threshold", "25%", "minimum effect of a significant change in a normalised time or rate")
	fl.StringArrayVar(&o.Baselines, "baseline", nil, `result file (or glob: "results/baseline/ci*.json") whose allocs/op and B/op the new revision must match (repeatable)`)
	fl.StringVar(&format, "format", "text", "output format: text or markdown")
	fl.StringVar(&summary, "summary", "", `also append the markdown summary to this file (e.g. "$GITHUB_STEP_SUMMARY")`)
	fl.StringVarP(&output, "output", "o", "", "write the new revision's merged results (JSON) to this file")
	fl.BoolVar(&o.AllowDirty, "allow-dirty", false, "run in a working tree with uncommitted changes to tracked files (they are not measured: the gate builds commits)")
	fl.StringVar(&o.Work, "work", "", "keep worktrees' binaries and every run's results in this directory (default: a temporary one)")
	return cmd
}

// checkSuite checks the suite's flags (--adapters, --workload, --keys,
// --count) as the run of each of its processes will check them, with
// this binary's adapters and this machine's memory, so that what the
// suite would refuse fails now and not after both revisions are built
// (minutes). The run is checked at a whole side's --count: a side's
// merged result is what one run of that count gives, so run's bound on
// it holds for the side too.
func checkSuite(o gate.Options) error {
	var f runFlags
	fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	f.register(fl)
	if err := fl.Parse(o.SuiteArgs(o.Count)); err != nil {
		return usageErrorf("gate: the suite's run: %w", err)
	}
	f.explicit = fl.Changed
	if _, _, _, err := f.config(io.Discard); err != nil {
		var tooBig *fit.TooBigError
		if errors.As(err, &tooBig) {
			// run's message offers --force, which the suite runs without.
			return usageErrorf("gate: --keys %d: the suite's %w", o.Keys, tooBig)
		}
		return usageErrorf("gate: %w", err)
	}
	return nil
}

// expandGlobs replaces each pattern holding a glob character by the files
// it matches; a pattern that matches nothing is an error, so that a
// mistyped baseline is not silently left out of the gate.
func expandGlobs(patterns []string) ([]string, error) {
	var out []string
	for _, p := range patterns {
		if !strings.ContainsAny(p, "*?[") {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", p, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%q matches no file", p)
		}
		out = append(out, m...)
	}
	return out, nil
}

// appendSummary appends the markdown summary to path (a CI job summary
// collects what every step appends).
func appendSummary(path string, res *gate.Result) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("gate: --summary: %w", err)
	}
	if err := gate.Write(f, res, "markdown"); err != nil {
		f.Close()
		return fmt.Errorf("gate: --summary %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("gate: --summary %s: %w", path, err)
	}
	return nil
}
