package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/fit"
	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/report/chart"
	"github.com/cachebench/cachebench/internal/workloads/hitratio"
	"github.com/cachebench/cachebench/internal/workloads/runner"
	"github.com/cachebench/cachebench/internal/workloads/trace"
	"github.com/cachebench/cachebench/internal/workloads/trace/published"
)

type hitRatioFlags struct {
	traces, chains       []string
	traceFormat          string
	capacity, adapters   string
	format, output, dir  string
	charts, progressMode string
	suite, from          string
	sample               string
	sampleMax            int
	sampleSeed           uint64
	jobs, repeat         int
	async                bool
	// explicit reports whether a flag was given (the suite keeps its own
	// adapters and capacities unless they are).
	explicit func(flag string) bool
}

func newHitRatioCmd() *cobra.Command {
	var f hitRatioFlags
	cmd := &cobra.Command{
		Use:   "hitratio --trace [FORMAT:]FILE [--trace [FORMAT:]FILE...]",
		Short: "Replay traces through adapters at a sweep of capacities; hit ratios beside Belady's OPT",
		Long: `hitratio replays each trace through a fresh adapter per capacity as get-or-set
(Get, and Set the object on a miss), and reports the object and byte hit ratio
of every adapter and of Belady's optimal policy (OPT), computed from the trace's
next-request times, and of the reference policies LRU, FIFO, S3-FIFO and SIEVE,
simulated by the lab itself over the trace's object numbers (S3-FIFO and SIEVE
from their papers; lru is this LRU, not the hashicorp/golang-lru adapter that
'cachebench run' measures, with the same hits at every size). Capacities: ` + hitratio.CapacityHelp + `.
Entry-bounded caches get the entry budget, byte-bounded ones entries x (mean
object, at most the 1 MiB a value is cut to, + 8-byte key + 48 B).
Before replaying, each trace is rewritten once into a normalized copy in --dir
(16 B per request); the copy is refused (exit 2) once it would pass the free
disk there or its maps (about 48 B per object) the available memory. The sweep
is then refused (exit 2) when the --jobs largest of its replays, which may run
at once, would not fit the available memory: a byte-budget cache (freecache,
fastcache, bigcache, shardcache) counts its whole budget, an entry-bounded one
at most the trace's objects.
Traces may be gzip, zstd or xz compressed (told by their magic bytes). A trace's
format is given as FORMAT:FILE, else by --trace-format, else guessed from the
file's extension or the name of its directory (cache2k/web07.trace.xz). A FILE
that is not on disk but names a vendored trace (lirs/sprite; 'cachebench trace
stats --vendored' lists them) is read from the binary. A
malformed or truncated record stops the run with its record number (exit 2).
Trace formats:
  ` + strings.Join(trace.Help(), "\n  ") + `
A trace may also be ` + genSpecHelp + `.

--sample RATE replays only the objects whose seeded 64-bit hash of the key falls
under RATE of the hash space (spatial sampling, SHARDS), with every budget scaled
by RATE; --sample-max N keeps at most N distinct objects, lowering the rate as new
objects arrive. Memory is then that of the sampled objects and the caches, and
the trace's normalized copy holds only the sampled requests. Every cell shows its
standard error (±, in points), estimated from how its hits spread over the
sampled objects; the JSON gives it in each row's "sample".

--suite real replays every vendored trace ('cachebench trace stats --vendored')
with ` + hitratio.SuiteAdapters + `,
at 1, 2, 5, 10 and 20% of each trace's objects; a trace of fewer than 3,000 objects
at five entry counts from the smallest every one of those adapters can be
configured with to half its objects. Over several traces a summary ranks the
adapters by how many points of object hit ratio they fall below the best
unflagged adapter of each cell.

Caches that maintain their policy on another goroutine (otter, theine,
ristretto) are drained after every Set, so that each holds its budget at every
request, as a simulator measures a policy; --async lets them run as in
production, where a fast single-goroutine replay outruns their maintenance and
a small cache can hold several times its budget.

A cell is flagged (*) when its adapter held more than 1.25x its entry budget
(sampled every 256 requests and at the end), beat
OPT, failed Sets or returned a wrong value; n/c when the adapter cannot be
configured at that size (it has a minimum size above the budget); failed when
its replay failed. Flags are listed once per adapter and kind. Exit codes: 0 when
every cell ran or is n/c, 1 when a cell failed (everything else is still written),
2 for bad usage or a bad trace, 130 when interrupted: the traces replayed before
Ctrl-C are written, marked as interrupted, to NAME.interrupted.EXT beside -o (a
complete result named by -o is left as it was), or to stdout without -o.`,
		Example: `  cachebench trace gen --kind zipf --requests 1000000 --keys 100000 -o zipf.oracleGeneral
  cachebench hitratio --trace zipf.oracleGeneral --adapters lru,arc,theine,otter
  cachebench hitratio --trace cache2k/web07 --trace lirs/sprite --capacity 0.01,0.05
  cachebench hitratio --trace gen:zipf,requests=100000000,keys=10000000 --sample 0.01 --adapters lru,s3fifo
  cachebench hitratio --suite real --format markdown -o real.md --charts charts/
  cachebench hitratio --trace w.csv.zst --capacity 0.001,0.01,0.1 --format json -o w.json --charts charts/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.explicit = cmd.Flags().Changed
			return runHitRatio(cmd, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.traces, "trace", nil, "trace to replay, [FORMAT:]FILE or gen:KIND,key=value,... (repeatable)")
	fl.StringArrayVar(&f.chains, "chain", nil, "replay comma-separated traces A,B,... one after the other as one stream (repeatable; --trace chain:A+B is the same)")
	fl.StringVar(&f.suite, "suite", "", `"real": every vendored trace, with the suite's adapters and capacities (see above)`)
	fl.StringVar(&f.from, "from", "", "render a result saved with --format json (tables, summary, --charts) instead of replaying")
	fl.StringVar(&f.traceFormat, "trace-format", "auto", "format of the traces given without FORMAT: auto (from the file name) or one of the formats above")
	fl.StringVar(&f.capacity, "capacity", "0.01,0.02,0.05,0.1,0.2", "comma-separated capacities: fractions of distinct objects (0.05, 5%), entry counts (5000) or byte sizes (64MiB)")
	fl.StringVar(&f.adapters, "adapters", "memory,s3fifo,sieve", `comma-separated adapter names, groups ("memory": the in-memory caches that evict; name map or syncmap to add them) and reference policies (s3fifo, sieve); OPT is always added`)
	fl.StringVar(&f.format, "format", "markdown", "output format: text, markdown or json")
	fl.StringVarP(&f.output, "output", "o", "", "write the results to this file (atomically) instead of stdout")
	fl.StringVar(&f.charts, "charts", "", "also write SVG and PNG charts (one per trace) into this directory")
	fl.IntVar(&f.jobs, "jobs", runtime.GOMAXPROCS(0), "replays run at once, each on its own goroutine")
	fl.IntVar(&f.repeat, "repeat", 1, "replay each adapter this many times per cell (1 to 99) and report the replay with the median object hit ratio: otter, theine, ristretto and freecache give different figures from one replay to the next; OPT and the reference policies replay once")
	fl.BoolVar(&f.async, "async", false, "let otter, theine and ristretto evict on their own goroutines as in production instead of draining them after every Set (small caches may then hold several times their budget)")
	fl.StringVar(&f.sample, "sample", "", "replay only this share of the objects, chosen by a seeded hash of the key, into caches scaled by it (0.01 or 1%; SHARDS); each cell gets a standard error")
	fl.IntVar(&f.sampleMax, "sample-max", 0, "sample at most this many distinct objects, lowering the rate (from --sample, or 100%) as new objects arrive")
	fl.Uint64Var(&f.sampleSeed, "sample-seed", 1, "seed of the sampling hash: another seed draws another sample")
	fl.StringVar(&f.dir, "dir", "", "scratch directory for the normalized traces (default: the system temp dir)")
	fl.StringVar(&f.progressMode, "progress", "auto", progressHelp)
	return cmd
}

// genBytesPerKey is the memory a streamed synthetic trace takes per key:
// its zipf table and its permutation, 8 bytes each.
const genBytesPerKey = 16

// sampling reads --sample, --sample-max and --sample-seed: nil when the
// replay is exact.
func sampling(f *hitRatioFlags) (*trace.Sampling, error) {
	if f.sample == "" && f.sampleMax == 0 {
		if f.explicit != nil && f.explicit("sample-seed") {
			return nil, errors.New("--sample-seed needs --sample or --sample-max")
		}
		return nil, nil
	}
	s := &trace.Sampling{Seed: f.sampleSeed, Max: f.sampleMax}
	if f.sample != "" {
		r, err := parse.Fraction(f.sample)
		if err != nil {
			return nil, fmt.Errorf("--sample %w", err)
		}
		s.Rate = r
	}
	if f.sampleMax < 0 {
		return nil, fmt.Errorf("--sample-max must be at least 1, got %d", f.sampleMax)
	}
	return s, s.Validate()
}

// maxJobs bounds --jobs as --cpu is bounded: each job is a goroutine that
// replays into a cache of its own, and --jobs 1000000000 started that many
// goroutines (the kernel killed the process for memory after minutes).
const maxJobs = runner.MaxProcs

// hitRatioConfig checks every flag before anything is read or replayed.
func hitRatioConfig(f *hitRatioFlags) (hitratio.Config, error) {
	var c hitratio.Config
	switch {
	case f.suite != "" && f.suite != "real":
		return c, fmt.Errorf("--suite %q: the one suite is \"real\"", f.suite)
	case f.suite != "" && len(f.traces)+len(f.chains) > 0:
		return c, errors.New("--suite and --trace or --chain cannot be combined")
	case f.suite == "" && len(f.traces)+len(f.chains) == 0:
		return c, errors.New("--trace, --chain or --suite real is required")
	}
	tf, err := trace.ParseFormat(f.traceFormat)
	if err != nil {
		return c, fmt.Errorf("--trace-format: %w", err)
	}
	if c.Sample, err = sampling(f); err != nil {
		return c, err
	}
	for _, arg := range f.traces {
		spec, ok := strings.CutPrefix(arg, genPrefix)
		if !ok {
			c.Traces = append(c.Traces, published.Resolve(arg, tf))
			continue
		}
		g, err := parseGenSpec(spec)
		if err != nil {
			return c, fmt.Errorf("--trace %s: %w", arg, err)
		}
		need := fit.Need{What: "--trace " + arg, Memory: int64(g.Keys) * genBytesPerKey,
			MemoryDetail: fmt.Sprintf("the generator's popularity table and permutation: %d B per key", genBytesPerKey)}
		if c.Sample == nil {
			// Replayed exactly, every request lands in the normalized copy;
			// how many a sample keeps is known only once it is drawn.
			need.Dir, need.Disk = cmp.Or(f.dir, os.TempDir()), g.Requests*trace.NormalizedRecordSize
			need.DiskDetail = fmt.Sprintf("the normalized copy in --dir: %d B × %d requests (--sample replays fewer)", trace.NormalizedRecordSize, g.Requests)
		}
		if err := fit.Check(need); err != nil {
			return c, err
		}
		c.Traces = append(c.Traces, trace.Source{Gen: &g, Name: arg})
	}
	for _, arg := range f.chains {
		c.Traces = append(c.Traces, published.Resolve(trace.ChainPrefix+strings.ReplaceAll(arg, ",", "+"), tf))
	}
	if c.Capacities, err = hitratio.ParseCapacities(f.capacity); err != nil {
		return c, fmt.Errorf("--capacity: %w", err)
	}
	adapters := f.adapters
	if f.suite != "" && !f.explicit("adapters") {
		adapters = hitratio.SuiteAdapters
	}
	if c.Adapters, err = hitratio.ResolveAdapters(adapters); err != nil {
		return c, fmt.Errorf("--adapters: %w", err)
	}
	if f.suite != "" {
		for _, t := range published.List() {
			c.Traces = append(c.Traces, t.Source())
		}
		if !f.explicit("capacity") {
			c.CapacitiesFor = hitratio.SuiteCapacities(c.Adapters)
		}
	}
	if err := checkFormat(f.format, hitratio.Formats); err != nil {
		return c, err
	}
	if f.jobs < 1 || f.jobs > maxJobs {
		return c, fmt.Errorf("--jobs must be in 1..%d, got %d", maxJobs, f.jobs)
	}
	if f.repeat < 1 || f.repeat > 99 {
		return c, fmt.Errorf("--repeat must be between 1 and 99, got %d", f.repeat)
	}
	if f.output != "" {
		if _, err := checkOutput("-o", f.output); err != nil {
			return c, err
		}
	}
	if f.charts != "" {
		// Created like -o's file is: a chart directory that does not exist
		// yet is what a first run names.
		if err := os.MkdirAll(f.charts, 0o755); err != nil {
			return c, usageErrorf("--charts: %w", err)
		}
		if err := checkDir("--charts", f.charts); err != nil {
			return c, err
		}
	}
	if f.dir != "" {
		if err := checkDir("--dir", f.dir); err != nil {
			return c, err
		}
	}
	c.Jobs, c.Dir, c.Async, c.Repeat = f.jobs, f.dir, f.async, f.repeat
	return c, nil
}

func runHitRatio(cmd *cobra.Command, f *hitRatioFlags) error {
	if f.from != "" {
		if len(f.traces)+len(f.chains) > 0 || f.suite != "" {
			return usageErrorf("--from renders a saved result: it takes no --trace or --suite")
		}
		if err := checkFormat(f.format, hitratio.Formats); err != nil {
			return usageError{err}
		}
		// -o is checked before the file is read, as with a replay: a path
		// refused only when writing was exit 1, not 2.
		if f.output != "" {
			if _, err := checkOutput("-o", f.output); err != nil {
				return err
			}
		}
		res, err := hitratio.Load(cmd.Context(), f.from)
		if err != nil {
			return usageError{err}
		}
		return writeHitRatio(cmd.Context(), cmd, f, res)
	}
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
	var tooBig *fit.TooBigError // a --capacity beyond the memory there is
	if errors.Is(err, hitratio.ErrInput) || errors.As(err, &tooBig) {
		return usageError{err}
	}
	if err != nil && res != nil && res.Interrupted {
		// The traces replayed before Ctrl-C are kept, in their own file
		// (writeHitRatio), under a context that is not the cancelled one.
		if werr := writeHitRatio(context.WithoutCancel(cmd.Context()), cmd, f, res); werr != nil {
			return errors.Join(err, werr)
		}
		return err
	}
	if err != nil {
		return err
	}
	if err := writeHitRatio(cmd.Context(), cmd, f, res); err != nil {
		return err
	}
	if res.Failed > 0 {
		return fmt.Errorf("%d cells failed (marked \"failed\" in the output)", res.Failed)
	}
	return nil
}

// writeHitRatio writes res (and its charts) where the flags say; the
// partial result of an interrupted sweep goes to interruptedName of a
// regular -o file, leaving a complete result there as it was, and no
// charts are drawn for it.
func writeHitRatio(ctx context.Context, cmd *cobra.Command, f *hitRatioFlags, res *hitratio.Result) error {
	if f.charts != "" && !res.Interrupted {
		for i := range res.Traces {
			_, err := chart.HitRatio(res.Traces[i].ChartData(), f.charts)
			if errors.Is(err, chart.ErrNoPoints) {
				fmt.Fprintf(cmd.ErrOrStderr(), "cachebench: --charts: trace %s has no rows: no chart drawn for it\n", res.Traces[i].Name)
				continue
			}
			if err != nil {
				return fmt.Errorf("--charts: %w", err)
			}
		}
	}
	write := func(w io.Writer) error { return hitratio.Write(w, res, f.format) }
	_, err := writeOutput(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), f.output, res.Interrupted, write)
	return err
}
