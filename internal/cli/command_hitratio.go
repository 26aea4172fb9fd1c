package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/report/chart"
	"github.com/cachebench/cachebench/internal/workloads/hitratio"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

type hitRatioFlags struct {
	traces               []string
	traceFormat          string
	capacity, adapters   string
	format, output, dir  string
	charts, progressMode string
	jobs                 int
}

func newHitRatioCmd() *cobra.Command {
	var f hitRatioFlags
	cmd := &cobra.Command{
		Use:   "hitratio --trace FILE [--trace FILE...]",
		Short: "Replay traces through adapters at a sweep of capacities; hit ratios beside Belady's OPT",
		Long: `hitratio replays each trace through a fresh adapter per capacity as get-or-set
(Get, and Set the object on a miss), and reports the object and byte hit ratio
of every adapter and of Belady's optimal policy (OPT), computed from the trace's
next-request times. Capacities are fractions of the trace's distinct objects
(0.05), entry counts (5000) or byte sizes (64MiB); entry-bounded caches get the
entry budget, byte-bounded ones entries x (mean object + 8-byte key + 48 B).
Traces may be gzip or zstd compressed. Trace formats: ` + fmt.Sprint(trace.Formats()) + `.`,
		Example: `  cachebench trace gen --kind zipf --requests 1000000 --keys 100000 -o zipf.oracleGeneral
  cachebench hitratio --trace zipf.oracleGeneral --adapters lru,arc,theine,otter
  cachebench hitratio --trace w.csv.zst --capacity 0.01,0.05,0.1 --format json -o w.json --charts charts/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHitRatio(cmd, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.traces, "trace", nil, "trace file to replay (repeatable)")
	fl.StringVar(&f.traceFormat, "trace-format", "auto", "trace format: auto (from the file name) or one of the formats above")
	fl.StringVar(&f.capacity, "capacity", "0.01,0.02,0.05,0.1,0.2", "comma-separated capacities: fractions of distinct objects, entry counts or byte sizes")
	fl.StringVar(&f.adapters, "adapters", "memory", `comma-separated adapter names or groups ("memory"); OPT is always added`)
	fl.StringVar(&f.format, "format", "markdown", "output format: text, markdown or json")
	fl.StringVarP(&f.output, "output", "o", "", "write the results to this file (atomically) instead of stdout")
	fl.StringVar(&f.charts, "charts", "", "also write SVG and PNG charts (one per trace) into this directory")
	fl.IntVar(&f.jobs, "jobs", runtime.GOMAXPROCS(0), "replays run at once, each on its own goroutine")
	fl.StringVar(&f.dir, "dir", "", "scratch directory for the normalized traces (default: the system temp dir)")
	fl.StringVar(&f.progressMode, "progress", "auto", progressHelp)
	return cmd
}

// hitRatioConfig checks every flag before anything is read or replayed.
func hitRatioConfig(f *hitRatioFlags) (hitratio.Config, error) {
	var c hitratio.Config
	if len(f.traces) == 0 {
		return c, errors.New("--trace is required")
	}
	tf, err := trace.ParseFormat(f.traceFormat)
	if err != nil {
		return c, fmt.Errorf("--trace-format: %w", err)
	}
	for _, p := range f.traces {
		c.Traces = append(c.Traces, hitratio.TraceInput{Path: p, Format: tf})
	}
	if c.Capacities, err = hitratio.ParseCapacities(f.capacity); err != nil {
		return c, fmt.Errorf("--capacity: %w", err)
	}
	factories, err := engine.Resolve(f.adapters)
	if err != nil {
		return c, fmt.Errorf("--adapters: %w", err)
	}
	for _, fac := range factories {
		c.Adapters = append(c.Adapters, fac.Name)
	}
	if err := checkFormat(f.format, hitratio.Formats); err != nil {
		return c, err
	}
	if f.jobs < 1 {
		return c, fmt.Errorf("--jobs must be at least 1, got %d", f.jobs)
	}
	if f.output != "" {
		if err := report.CheckWritable(f.output); err != nil {
			return c, fmt.Errorf("-o: %w", err)
		}
	}
	if f.charts != "" {
		// Created like -o's file is: a chart directory that does not exist
		// yet is what a first run names.
		if err := os.MkdirAll(f.charts, 0o755); err != nil {
			return c, fmt.Errorf("--charts: %w", err)
		}
		if err := report.CheckWritable(filepath.Join(f.charts, ".probe")); err != nil {
			return c, fmt.Errorf("--charts: %w", err)
		}
	}
	c.Jobs, c.Dir = f.jobs, f.dir
	return c, nil
}

func runHitRatio(cmd *cobra.Command, f *hitRatioFlags) error {
	c, err := hitRatioConfig(f)
	if err != nil {
		return usageError{err}
	}
	prog, err := newProgress(f.progressMode, cmd.ErrOrStderr())
	if err != nil {
		return usageError{err}
	}
	defer prog.finish()
	c.Progress = prog.update
	res, err := hitratio.Run(cmd.Context(), c)
	prog.finish()
	if errors.Is(err, hitratio.ErrInput) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if f.charts != "" {
		for i := range res.Traces {
			if _, err := chart.HitRatio(res.Traces[i].ChartData(), f.charts); err != nil {
				return err
			}
		}
	}
	write := func(w io.Writer) error { return hitratio.Write(w, res, f.format) }
	if f.output == "" {
		return write(cmd.OutOrStdout())
	}
	return report.WriteFileAtomic(f.output, write)
}
