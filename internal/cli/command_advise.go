package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/workloads/advise"
	"github.com/cachebench/cachebench/internal/workloads/trace"
	"github.com/cachebench/cachebench/internal/workloads/trace/published"
)

// adviseFlags are the flags of `cachebench advise`.
type adviseFlags struct {
	keys        int
	valueSize   string
	access      string
	capacity    string
	readRatio   float64
	cpu         int
	missPenalty time.Duration
	adapters    string
	budget      time.Duration
	count       int
	seed        uint64
	format      string
	output      string
	progress    string
	force       bool
}

func newAdviseCmd() *cobra.Command {
	var f adviseFlags
	cmd := &cobra.Command{
		Use:   "advise",
		Short: "Answer \"which cache for my service?\" within a time budget: a verdict, one table, the reasons, the commands behind each figure",
		Long: `advise takes the shape of a service (--keys, --value-size, --access, --capacity,
--read-ratio, --cpu, --miss-penalty) and measures, within --budget, what the answer
needs, with the code of run and gc-pause: get-or-set at the capacity (the hit ratio
and the time per request with misses priced: ns/op + miss ratio × --miss-penalty),
lookups and inserts at the shape (insert-lookup), a mixed pass at the read ratio,
and a short gc-pause child per adapter at the key count (memory per entry, the wall
time of a full collection). Before it starts it prints its plan and an estimate; the
stages run in the order the answer needs them, and a stage the budget no longer
allows is left out and named.

The output leads with a verdict: the adapter with the lowest time per request with
misses, or "tied" and the adapters the Mann-Whitney test over the get-or-set
repetitions does not tell apart from it (fewer than 4 repetitions tell nothing
apart: the verdict says so). Then a table, the reasons an adapter is flagged or not
ranked (an unbounded map holds everything and is not comparable on hit ratio), the
mixed pass, and the run and gc-pause commands that reproduce every figure.
--format json keeps every figure, with the runner's and gc-pause's results.

--access is ` + advise.AccessHelp + `.
--capacity is an entry count (100000), a fraction of the keys (10%, 0.1) or a byte
size (64MiB); with a trace, a fraction of its objects. Counts take units: 1M, 1e6.

Exit codes: 0 answered; 1 an adapter failed (the others are still ranked); 2 bad
input (an unknown access pattern, a capacity above the keys, a budget too small to
measure anything, which says what would fit; a trace that cannot be read); 130
interrupted: what was measured so far is written, marked partial.`,
		Example: `  cachebench advise --keys 1M --value-size 1KiB --access zipf --capacity 10% --cpu 2 --miss-penalty 100us
  cachebench advise --access trace:lirs/cs --capacity 10% --cpu 2 --miss-penalty 100us
  cachebench advise --keys 100000 --value-size 64-4096 --access hotcold:0.1/0.9 --capacity 16MiB --adapters shardcache,otter,theine --budget 30s
  cachebench advise --keys 200000 --access uniform --capacity 20000 --format json -o advice.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAdvise(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &f)
		},
	}
	fl := cmd.Flags()
	fl.Var(parse.NewCountValue(&f.keys, advise.DefaultKeys), "keys", "key count of the service (1M, 1e6 and 1000000 alike; a trace has its own)")
	fl.StringVar(&f.valueSize, "value-size", advise.DefaultValueSize, "value size, N or MIN-MAX, with units (1KiB, 64-4096)")
	fl.StringVar(&f.access, "access", advise.DefaultAccess, "access pattern: "+advise.AccessHelp)
	fl.StringVar(&f.capacity, "capacity", advise.DefaultCapacity, "what the cache holds: entries (100000), a fraction of the keys (10%) or bytes (64MiB)")
	fl.Float64Var(&f.readRatio, "read-ratio", advise.DefaultReadRatio, "share of reads in the mixed pass")
	fl.IntVar(&f.cpu, "cpu", 1, "GOMAXPROCS of every pass, one worker per proc")
	fl.DurationVar(&f.missPenalty, "miss-penalty", advise.DefaultMissPenalty, "what a miss costs the service (its trip to the backing store); priced into the time per request")
	fl.StringVar(&f.adapters, "adapters", advise.DefaultAdapters, `in-memory adapter names or groups ("memory": every in-memory cache)`)
	fl.DurationVar(&f.budget, "budget", advise.DefaultBudget, "wall time the measurements may take; the plan and its estimate are printed first")
	fl.IntVar(&f.count, "count", 0, fmt.Sprintf("get-or-set repetitions (at least %d, which the ranks need); default: as many as the budget allows, up to %d", advise.MinReps, advise.MaxReps))
	fl.Uint64Var(&f.seed, "seed", 1, "seed of keys, values and access orders")
	fl.StringVar(&f.format, "format", "markdown", "output format: markdown or json")
	fl.StringVarP(&f.output, "output", "o", "", "write the answer to this file (atomically) instead of stdout")
	fl.StringVar(&f.progress, "progress", "auto", progressHelp)
	fl.BoolVar(&f.force, "force", false, "run even when the estimated memory exceeds what is available")
	return cmd
}

// runAdvise reads the flags, makes the one advise call and writes its
// answer; a partial answer is written when the run is cut short.
func runAdvise(ctx context.Context, stdout, stderr io.Writer, f *adviseFlags) error {
	access, err := advise.ParseAccess(f.access)
	if err != nil {
		return usageError{err}
	}
	if err := checkFormat(f.format, []string{"markdown", "json"}); err != nil {
		return usageError{err}
	}
	if f.output != "" {
		if _, err := checkOutput("-o", f.output); err != nil {
			return err
		}
	}
	progress, err := newProgress(f.progress, stderr)
	if err != nil {
		return usageError{err}
	}
	opts := advise.Options{
		Keys: f.keys, ValueSize: f.valueSize, Access: access, Capacity: f.capacity, ReadRatio: f.readRatio,
		CPU: f.cpu, MissPenalty: f.missPenalty, Adapters: f.adapters, Budget: f.budget, Count: f.count, Seed: f.seed,
		ResolveTrace: func(arg string) trace.Source { return published.Resolve(arg, "") },
		Progress:     progress.update,
		Log:          func(line string) { progress.println("cachebench advise: " + line) },
	}
	need, err := advise.Need(opts)
	if err != nil {
		return usageError{err}
	}
	if err := checkFit(need, f.force); err != nil {
		return err
	}
	defer progress.finish()
	res, runErr := advise.Run(ctx, opts)
	progress.finish()
	if res == nil {
		if advise.IsInput(runErr) {
			return usageError{runErr}
		}
		return runErr
	}
	render := func(w io.Writer) error {
		if f.format == "json" {
			return advise.WriteJSON(w, res)
		}
		return advise.WriteMarkdown(w, res)
	}
	where, err := writeOutput(ctx, stdout, stderr, f.output, res.Partial, render)
	if err != nil {
		return err
	}
	if res.Partial {
		return fmt.Errorf("interrupted: the figures measured so far were written to %s, marked partial: %w", where, runErr)
	}
	if runErr != nil {
		return runErr
	}
	if res.Run != nil && len(res.Run.Errors) > 0 {
		return fmt.Errorf("%d adapter runs failed (see the reasons)", len(res.Run.Errors))
	}
	return nil
}
