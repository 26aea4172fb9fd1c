package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/report"
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
}

func newGCPauseCmd() *cobra.Command {
	var f gcPauseFlags
	cmd := &cobra.Command{
		Use:   "gc-pause",
		Short: "Measure what each cache's entries cost the garbage collector",
		Long: fmt.Sprintf(`gc-pause fills each in-memory adapter with --entries entries (keys "key_%%d",
--value-size-byte values, GOGC=--gogc) in a fresh child process of its own (the
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
a child that fails (out of memory, crash) is reported and the others go on.`,
			gcpause.KeyLen, workloads.EntryOverhead, workloads.InsertHeadroom),
		Example: `  cachebench gc-pause
  cachebench gc-pause --entries 1000000 --count 3
  cachebench gc-pause --adapters map,fastcache,freecache --gogc 100 --format text
  cachebench gc-pause --format json -o results/gc-pause.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runGCPause(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.Entries, "entries", 20_000_000, "entries written into each cache")
	fl.IntVar(&f.ValueSize, "value-size", 100, fmt.Sprintf("value size in bytes (%d..%d)", gcpause.MinValueSize, gcpause.MaxValueSize))
	fl.IntVar(&f.GOGC, "gogc", 10, "GOGC of each child (debug.SetGCPercent); -1 turns the collector off")
	fl.StringVar(&f.adapters, "adapters", "", "comma-separated in-memory adapters (default: every in-memory adapter)")
	fl.IntVar(&f.count, "count", 5, "repetitions, each in a fresh child process")
	fl.Uint64Var(&f.Seed, "seed", 1, "seed of the verified sample and of the keys read during the GC")
	fl.IntVar(&f.Verify, "verify", 10_000, "random entries read back and checked after the fill (all when ≥ --entries)")
	fl.IntVar(&f.GCReads, "gc-reads", gcpause.DefaultGCReads, "Gets that must fall inside (and outside) forced collections")
	fl.DurationVar(&f.GCReadTime, "gc-read-time", gcpause.DefaultGCReadTime, "time bound of the Gets across forced collections")
	fl.StringVar(&f.format, "format", "markdown", "output format: text, markdown, json or gobench")
	fl.StringVarP(&f.output, "output", "o", "", "write the results to this file (atomically) instead of stdout")
	fl.StringVar(&f.progress, "progress", "auto", progressHelp)
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
		if err := report.CheckWritable(f.output); err != nil {
			return usageErrorf("-o: %w", err)
		}
	}
	cfg.Progress, cfg.Log = progress.update, progress.println
	res, runErr := gcpause.Measure(ctx, cfg)
	progress.finish()
	if res == nil {
		return runErr
	}
	if err := writeResult(stdout, f.output, f.format, res); err != nil {
		return err
	}
	return runErr
}
