package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/fit"
	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/gcpause"
)

// gcPauseFlags are the flags of `cachebench gc-pause`.
type gcPauseFlags struct {
	gcpause.Params
	adapters string
	count    int
	format   string
	output   string
	progress string
	force    bool
	quick    bool
	estimate bool
}

// The --quick sizes: about a minute for the 11 in-memory adapters on a
// 2-core machine, large enough that the on-heap caches' collections
// already take tens of milliseconds more than the GC-free ones'.
const (
	quickEntries    = 2_000_000
	quickCount      = 1
	quickGCReadTime = 10 * time.Second
)

func newGCPauseCmd() *cobra.Command {
	var f gcPauseFlags
	cmd := &cobra.Command{
		Use:   "gc-pause",
		Short: "Measure what each cache's entries cost the garbage collector",
		Long: fmt.Sprintf(`gc-pause fills each in-memory adapter with --entries entries (keys "key_%%d",
values of --value-size bytes, GOGC=--gogc) in a fresh child process of its own (the
binary re-executes itself), so that no adapter's garbage or RSS pollutes another's
figures, and reports per adapter:

  fill time; STW pauses (count, max, total, from runtime/metrics); the wall time and
  GC CPU time of a full forced collection after the fill, and the GC CPU of the fill;
  heap objects and heap in use after that collection; peak RSS (VmHWM) and RSS bytes
  per entry; the p50, p99 and p99.9 latency of Gets issued from another goroutine
  inside and outside forced collections, repeated until --gc-reads Gets fell inside
  (or --gc-read-time ran out); and a verified sample of the entries.

The STW pause alone, which bigcache's README compares, stays at tens of µs in modern
Go whatever the heap holds. What grows with the number of pointers is the mark phase:
the forced-GC wall and CPU time and the latency during collections show it.

Byte-bounded caches get a memory budget of entries × (%d-byte key + value + %d) × %g,
so that nothing is evicted during the fill. Each repetition (--count) is a fresh child;
a child that fails (out of memory, crash) is reported and the others go on. One child
runs at a time and holds about that budget (the peak RSS per entry of every adapter
measured so far is within it), so a budget above the available memory (MemAvailable,
or GOMEMLIMIT if lower) is refused with exit 2 before any child starts, unless --force.

The defaults (20,000,000 entries × 5 repetitions, as bigcache's README) take an hour
or more on 2 cores. A run of more than %d entries first prints an estimate: one
child per adapter at a tenth of the entries, at most %d (about 10 s), extrapolated
linearly, which is a lower bound (per-entry costs grow with size); after the first
repetition the log says how long the rest will take. --quick measures %d entries once (--count %d,
--gc-read-time %s; about a minute for every in-memory adapter on 2 cores); flags
given with it win.`,
			gcpause.KeyLen, workloads.EntryOverhead, workloads.InsertHeadroom, gcpause.MinEstimateEntries, gcpause.MaxCalibrationEntries,
			quickEntries, quickCount, quickGCReadTime),
		Example: `  cachebench gc-pause --quick
  cachebench gc-pause
  cachebench gc-pause --entries 1000000 --count 3
  cachebench gc-pause --adapters map,fastcache,freecache --gogc 100 --format text
  cachebench gc-pause --format json -o results/gc-pause.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.quick {
				fl := cmd.Flags()
				if !fl.Changed("entries") {
					f.Entries = quickEntries
				}
				if !fl.Changed("count") {
					f.count = quickCount
				}
				if !fl.Changed("gc-read-time") {
					f.GCReadTime = quickGCReadTime
				}
			}
			return runGCPause(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &f)
		},
	}
	fl := cmd.Flags()
	fl.Var(parse.NewCountValue(&f.Entries, 20_000_000), "entries", "entries written into each cache")
	fl.IntVar(&f.ValueSize, "value-size", 100, fmt.Sprintf("value size in bytes (%d..%d)", gcpause.MinValueSize, gcpause.MaxValueSize))
	fl.IntVar(&f.GOGC, "gogc", 10, "GOGC of each child (debug.SetGCPercent); -1 turns the collector off")
	fl.StringVar(&f.adapters, "adapters", "", "comma-separated in-memory adapters (default: every in-memory adapter)")
	fl.IntVar(&f.count, "count", 5, "repetitions, each in a fresh child process")
	fl.Uint64Var(&f.Seed, "seed", 1, "seed of the verified sample and of the keys read during the GC")
	fl.Var(parse.NewCountValue(&f.Verify, 10_000), "verify", "random entries read back and checked after the fill (all when ≥ --entries)")
	fl.Var(parse.NewCountValue(&f.GCReads, gcpause.DefaultGCReads), "gc-reads", "Gets that must fall inside (and outside) forced collections")
	fl.DurationVar(&f.GCReadTime, "gc-read-time", gcpause.DefaultGCReadTime, "time bound of the Gets across forced collections")
	fl.StringVar(&f.format, "format", "markdown", "output format: text, markdown, json or gobench")
	fl.StringVarP(&f.output, "output", "o", "", "write the results to this file (atomically) instead of stdout")
	fl.StringVar(&f.progress, "progress", "auto", progressHelp)
	fl.BoolVar(&f.force, "force", false, "run even when one child's estimated memory exceeds what is available")
	fl.BoolVar(&f.quick, "quick", false, fmt.Sprintf("a short run: --entries %d --count %d --gc-read-time %s unless given (about a minute)", quickEntries, quickCount, quickGCReadTime))
	fl.BoolVar(&f.estimate, "estimate", true, fmt.Sprintf("above %d entries, estimate the run's time first (one short child per adapter)", gcpause.MinEstimateEntries))
	return cmd
}

func runGCPause(ctx context.Context, stdout, stderr io.Writer, f *gcPauseFlags) error {
	// Validate everything before measuring anything.
	adapters, err := gcpause.ResolveAdapters(f.adapters)
	if err != nil {
		return usageError{err}
	}
	cfg := gcpause.Config{Params: f.Params, Adapters: adapters, Count: f.count}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	if err := checkFormat(f.format, formats); err != nil {
		return usageError{err}
	}
	progress, err := newProgress(f.progress, stderr)
	if err != nil {
		return usageError{err}
	}
	if f.output != "" {
		if _, err := checkOutput("-o", f.output); err != nil {
			return err
		}
	}
	need := fit.Need{What: fmt.Sprintf("gc-pause --entries %d --value-size %d", f.Entries, f.ValueSize),
		Memory:       cfg.Budget().MemoryBytes,
		MemoryDetail: fmt.Sprintf("one child at a time, each about its insert budget: (%d-byte key + value + %d B) × %g per entry", gcpause.KeyLen, workloads.EntryOverhead, workloads.InsertHeadroom)}
	if err := checkFit(need, f.force); err != nil {
		return err
	}
	defer progress.finish()
	cfg.Progress, cfg.Log = progress.update, progress.println
	if f.estimate && cfg.Entries > gcpause.MinEstimateEntries {
		est, err := gcpause.EstimateRun(ctx, cfg)
		if err != nil {
			progress.finish()
			return fmt.Errorf("estimate: %w", err)
		}
		progress.println(describeEstimate(cfg, est))
	}
	res, runErr := gcpause.Measure(ctx, cfg)
	progress.finish()
	if res == nil {
		return runErr
	}
	if _, err := writeResult(ctx, stdout, stderr, f.output, f.format, res); err != nil {
		return err
	}
	if note := publicNote(cfg.Adapters); note != "" {
		fmt.Fprintln(stderr, note)
	}
	return runErr
}

// describeEstimate is the line gc-pause prints before a long run.
func describeEstimate(cfg gcpause.Config, est gcpause.Estimate) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cachebench gc-pause: estimate: at least %s for %d adapters × %d repetitions × %d entries (per child:",
		est.Total.Round(time.Second), len(cfg.Adapters), cfg.Count, cfg.Entries)
	for i, c := range est.PerChild {
		sep := ","
		if i == 0 {
			sep = ""
		}
		if c.Wall == 0 {
			fmt.Fprintf(&b, "%s %s failed at the calibration size", sep, c.Adapter)
			continue
		}
		fmt.Fprintf(&b, "%s %s %s", sep, c.Adapter, c.Wall.Round(time.Second))
	}
	fmt.Fprintf(&b, "); from one child per adapter at %d entries (%s), linear in the entries, and larger fills cost more per entry. "+
		"--quick measures %d entries once in about a minute; Ctrl-C stops and keeps what was measured.",
		est.CalibrationEntries, est.Calibration.Round(100*time.Millisecond), quickEntries)
	return b.String()
}
