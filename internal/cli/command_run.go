package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cachebench/cachebench/internal/engine/netserver"
	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/runner"
)

// runFlags are the flags of `cachebench run`.
type runFlags struct {
	adapters     string
	workload     string
	keys         int
	ops          int
	count        int
	cpu          string
	format       string
	output       string
	seed         uint64
	valueSize    string
	hotKeys      float64
	hotAccess    float64
	zipf         float64
	readRatio    float64
	capacity     float64 // from capacityArg
	capacityArg  string
	latencyEvery int
	warmup       float64
	coldOps      int
	dir          string
	progress     string
	noFloor      bool
	missPenalty  time.Duration
	force        bool
	// sloTarget is --slo, parsed.
	sloTarget *report.SLO
	openFlags
	netFlags
	// explicit reports whether a flag was given (preset workloads keep
	// their defaults for the others).
	explicit func(flag string) bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Drive workloads against adapters and report latency, throughput and hit ratios",
		Long: `run pre-generates keys, values and access orders from --seed, then measures every
adapter in every workload at every GOMAXPROCS value, --count times, interleaving the
adapters (A B C A B C ...) so machine drift hits all alike. Every value read back is
checked (values carry tags of their key, version and length at both ends); an adapter
that returns a wrong value is flagged. The null probe, an adapter that stores nothing,
runs beside them unless --no-floor: its figures, printed as "harness floor" under each
table, are what the runner's own loop costs per operation.

Adapter groups: "memory" (every in-memory cache, the default), "file" (file stores),
"all" (both), "network" (memcached, redis, redis-rueidis: never in "all"), "vectors"
(the float-vector stores of the read-vector workload, and its default: mmapstore-floats,
mmapstore-text, map-floats, map-text; never in "all"). Without
--memcached-addr / --redis-addr / --redis-cluster a network adapter starts its own server
from PATH on a free loopback port, with the run's memory budget as its limit, and stops it
afterwards. Workloads: see 'cachebench list'.

A workload trace:[FORMAT:]FILE replays a trace (formats and names as for hitratio;
a vendored trace by its name, such as trace:lirs/sprite) as get-or-set: its objects
become keys in order of first request, each valued at its first request's size
(16 bytes to 1 MiB), and its requests run once from an empty cache at --capacity of
its objects, split into contiguous parts, one per worker (--cpu); --keys, --ops and
--value-size do not apply. With --miss-penalty the get-or-set tables add the time
per request with misses included and rank by it.

Before generating anything, run estimates the memory the generated workloads and the
largest adapter budget need, and the disk the file stores write into --dir, and refuses
(exit 2) a run that does not fit MemAvailable (or GOMEMLIMIT) or --dir's free space,
unless --force. Exit codes: 0 every adapter ran cleanly; 1 an adapter failed in some
phase (set-up, insert, lookup, close...: the result records it, the failed phase
shows no hit ratio, the other adapters still run); 2 bad usage; 130 interrupted, with
the partial result in NAME.interrupted.EXT beside -o (a complete -o is never replaced).

--rate R runs each workload's timed pass open-loop (see docs/latency.md): R operations
a second across the workers, each given an intended start by the schedule (--arrivals
uniform or poisson) and timed from it (corrected latency, what a caller arriving on
schedule waits) and from its actual start (uncorrected); a worker behind schedule sends
its due operations at once and its backlog is reported. --rate 10k,100k,1M sweeps the
rates; --rate auto measures the closed loop, then ` + autoFractionsText + ` of each adapter's
closed-loop throughput. With --duration a pass stops there. A pass that achieves less than
90% of its offered rate is marked saturated in every output; --slo p99=1ms names the
highest rate meeting the objective. --hgrm DIR writes every open-loop histogram in
HdrHistogram's .hgrm format.`,
		Example: `  cachebench run
  cachebench run --adapters map,fastcache --workload zipf --keys 1000000 --count 5 --cpu 1,2
  cachebench run --workload get-or-set/zipf --capacity 0.1
  cachebench run --workload trace:lirs/sprite --capacity 0.05 --adapters lru,otter,theine,shardcache --miss-penalty 100us
  cachebench run --workload trace:cache2k/web07 --cpu 1,2
  cachebench run --adapters file --workload insert-lookup
  cachebench run --workload read-vector --keys 1000000 --count 5
  cachebench run --format json -o results/my-machine.json
  # benchstat: go install golang.org/x/perf/cmd/benchstat@` + benchstatVersion + `
  # its base column is the run's first adapter (the floor, impl=null, comes last)
  cachebench run --adapters map,shardcache,fastcache --format gobench | benchstat -col /impl -
  cachebench run --adapters network,shardcache,fastcache --workload get-or-set/umem --keys 1024
  cachebench run --adapters map,shardcache --workload get-or-set/zipf --rate 50k --duration 10s --ops 2000000
  cachebench run --adapters map,shardcache,otter,fastcache --workload get-or-set/zipf --rate auto --slo p99=100us --duration 5s --ops 5000000
  cachebench run --adapters map,shardcache --workload mixed/zipf --rate 10k,100k --arrivals poisson --hgrm /tmp/hgrm --duration 5s
  cachebench run --adapters memcached --memcached-addr 10.0.0.1:11211,10.0.0.2:11211 --flush-servers --workload get-or-set/umem`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.explicit = cmd.Flags().Changed
			return runRun(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &f)
		},
	}
	f.register(cmd.Flags())
	return cmd
}

// register defines the flags of `cachebench run` on fl, with their
// defaults; gate parses its suite's run command line with them too.
func (f *runFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.adapters, "adapters", "memory", `comma-separated adapter names or groups ("memory", "file", "all", "network", "vectors"); "vectors" when --workload is read-vector alone`)
	fl.StringVar(&f.workload, "workload", workloads.InsertLookup, "comma-separated workloads (see 'cachebench list')")
	fl.Var(parse.NewCountValue(&f.keys, 1_000_000), "keys", "size of the key space")
	fl.Var(parse.NewCountValue(&f.ops, 0), "ops", "operations per mixed or get-or-set pass (default: --keys)")
	fl.IntVar(&f.count, "count", 5, "repetitions of each measurement (reported as mean ± sd)")
	fl.StringVar(&f.cpu, "cpu", "1", "comma-separated GOMAXPROCS values; one worker per proc")
	fl.StringVar(&f.format, "format", "markdown", "output format: text, markdown, json or gobench")
	fl.StringVarP(&f.output, "output", "o", "", "write the results to this file (atomically) instead of stdout")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of keys, values and access orders")
	fl.StringVar(&f.valueSize, "value-size", "", `value size in bytes, N or MIN-MAX; 0 means "val_%d" (default: 0, or 64-1024 for get-or-set)`)
	fl.Float64Var(&f.hotKeys, "hot-keys", 0.2, "hotcold: fraction of keys that are hot")
	fl.Float64Var(&f.hotAccess, "hot-access", 0.8, "hotcold: fraction of accesses that go to hot keys")
	fl.Float64Var(&f.zipf, "zipf", 1.1, "zipf exponent s, in (1, 10]: Go's rand.Zipf needs s > 1 (trace gen --alpha, which samples a finite key set, also takes α ≤ 1)")
	fl.Float64Var(&f.readRatio, "read-ratio", 0.9, "mixed: fraction of operations that are reads")
	fl.StringVar(&f.capacityArg, "capacity", "0.1", "get-or-set: cache capacity as a fraction of --keys, below 1 (0.1) or a percentage (10%, 100%)")
	fl.IntVar(&f.latencyEvery, "latency-every", 64, "sample the latency of one operation in N (a power of two)")
	fl.Float64Var(&f.warmup, "warmup", 0.1, "fraction of a lookup pass run untimed before it")
	fl.Var(parse.NewCountValue(&f.coldOps, 100_000), "cold-ops", "lookups in the cold page cache pass of file stores")
	fl.StringVar(&f.dir, "dir", "", "scratch directory for file stores (default: the system temp dir)")
	fl.StringVar(&f.progress, "progress", "auto", progressHelp)
	fl.BoolVar(&f.noFloor, "no-floor", false, "do not measure the harness floor (the null probe) beside the adapters")
	fl.DurationVar(&f.missPenalty, "miss-penalty", 0, `get-or-set and trace tables: add "time per request, misses included" = time/op + miss ratio x this (the cost of a miss's trip to the backing store, e.g. 100us) and rank by it`)
	fl.BoolVar(&f.force, "force", false, "run even when the estimated memory or --dir disk exceeds what is available")
	f.netFlags.register(fl)
	f.openFlags.register(fl)
}

// runRun reads the flags, generates the workloads, runs them and writes
// the result; a partial result is written even when the run is cut short.
func runRun(ctx context.Context, stdout, stderr io.Writer, f *runFlags) error {
	cfg, specs, progress, err := f.config(stderr)
	if err != nil {
		return err
	}
	defer progress.finish()
	env, err := measureMachine(ctx, progress, f.seed)
	if err != nil {
		return err
	}
	for _, s := range specs {
		if s.Scenario == workloads.Trace {
			progress.message("reading " + s.Name())
		} else {
			progress.message(fmt.Sprintf("generating %s (%d keys)", s.Name(), s.Keys))
		}
		w, err := workloads.GenerateContext(ctx, s)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			return usageError{err}
		}
		cfg.Workloads = append(cfg.Workloads, w)
	}
	// Servers started for the network adapters are stopped by each
	// adapter's Close; this catches any left by a panic or an interrupt.
	defer netserver.StopAll()
	res, runErr := runner.Run(ctx, cfg)
	progress.finish()
	if res == nil {
		return runErr
	}
	res.Env = env
	// The generated specs: a trace workload's keys and requests are known
	// only once its trace is read.
	generated := make([]workloads.Spec, len(cfg.Workloads))
	for i, w := range cfg.Workloads {
		generated[i] = w.Spec
	}
	res.Config = f.manifest(cfg, generated)
	res.MissPenalty = report.Duration(f.missPenalty)
	res.SLO = f.sloTarget
	for _, e := range res.Errors {
		fmt.Fprintln(stderr, "cachebench: adapter failed:", e)
	}
	for _, e := range res.Skipped {
		fmt.Fprintln(stderr, "cachebench: skipped:", e)
	}
	where, err := writeResult(ctx, stdout, stderr, f.output, f.format, res)
	if err != nil {
		return err
	}
	if err := f.writeHgrm(res, stderr); err != nil {
		return err
	}
	if note := publicNote(cfg.Adapters); note != "" {
		fmt.Fprintln(stderr, note)
	}
	switch {
	case errors.Is(runErr, context.Canceled):
		return fmt.Errorf("interrupted: the %d measurements taken so far were written to %s: %w", len(res.Measurements), where, runErr)
	case runErr != nil:
		return runErr
	case len(res.Errors) > 0:
		return fmt.Errorf("%d adapter runs failed (see above)", len(res.Errors))
	}
	// A flagged adapter (wrong values, failed operations, lost entries)
	// did not do what a cache must: the run says so in its exit code, as
	// the table does next to the figures.
	if bad := res.FailingFlags(); len(bad) > 0 {
		return fmt.Errorf("%d measurements flagged: %s", len(bad), strings.Join(bad, "; "))
	}
	return nil
}

// benchstatVersion is the golang.org/x/perf version of go.mod, whose
// cmd/benchstat reads the gobench format; a test keeps the two equal.
const benchstatVersion = "v0.0.0-20260908200009-22c9c6c9d4da"
