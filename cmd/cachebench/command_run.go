package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/machine"
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
	capacity     float64
	latencyEvery int
	warmup       float64
	coldOps      int
	dir          string
	progress     string
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Drive workloads against adapters and report latency, throughput and hit ratios",
		Long: `run pre-generates keys, values and access orders from --seed, then measures every
adapter in every workload at every GOMAXPROCS value, --count times, interleaving the
adapters (A B C A B C ...) so machine drift hits all alike. Every value read back is
checked against what was written; an adapter that returns a wrong value is flagged.

Adapter groups: "memory" (every in-memory cache, the default), "file" (file stores),
"all". Workloads: see 'cachebench list'.`,
		Example: `  cachebench run
  cachebench run --adapters map,fastcache --workload zipf --keys 1000000 --count 5 --cpu 1,2
  cachebench run --workload get-or-set/zipf --capacity 0.1
  cachebench run --adapters file --workload insert-lookup
  cachebench run --format json -o results/my-machine.json
  cachebench run --format gobench | benchstat -col /impl -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRun(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.adapters, "adapters", "memory", `comma-separated adapter names or groups ("memory", "file", "all")`)
	fl.StringVar(&f.workload, "workload", workloads.InsertLookup, "comma-separated workloads (see 'cachebench list')")
	fl.IntVar(&f.keys, "keys", 1_000_000, "size of the key space")
	fl.IntVar(&f.ops, "ops", 0, "operations per mixed or get-or-set pass (default: --keys)")
	fl.IntVar(&f.count, "count", 5, "repetitions of each measurement (reported as mean ± sd)")
	fl.StringVar(&f.cpu, "cpu", "1", "comma-separated GOMAXPROCS values; one worker per proc")
	fl.StringVar(&f.format, "format", "markdown", "output format: text, markdown, json or gobench")
	fl.StringVarP(&f.output, "output", "o", "", "write the results to this file (atomically) instead of stdout")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of keys, values and access orders")
	fl.StringVar(&f.valueSize, "value-size", "", `value size in bytes, N or MIN-MAX; 0 means "val_%d" (default: 0, or 64-1024 for get-or-set)`)
	fl.Float64Var(&f.hotKeys, "hot-keys", 0.2, "hotcold: fraction of keys that are hot")
	fl.Float64Var(&f.hotAccess, "hot-access", 0.8, "hotcold: fraction of accesses that go to hot keys")
	fl.Float64Var(&f.zipf, "zipf", 1.1, "zipf exponent (> 1)")
	fl.Float64Var(&f.readRatio, "read-ratio", 0.9, "mixed: fraction of operations that are reads")
	fl.Float64Var(&f.capacity, "capacity", 0.1, "get-or-set: cache capacity as a fraction of --keys")
	fl.IntVar(&f.latencyEvery, "latency-every", 64, "sample the latency of one operation in N (a power of two)")
	fl.Float64Var(&f.warmup, "warmup", 0.1, "fraction of a lookup pass run untimed before it")
	fl.IntVar(&f.coldOps, "cold-ops", 100_000, "lookups in the cold page cache pass of file stores")
	fl.StringVar(&f.dir, "dir", "", "scratch directory for file stores (default: the system temp dir)")
	fl.StringVar(&f.progress, "progress", "auto", "progress on stderr: auto (only on a terminal), always or never")
	return cmd
}

// parseCPUList parses --cpu.
func parseCPUList(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > 1024 {
			return nil, fmt.Errorf("--cpu %q: each value must be an integer in 1..1024", s)
		}
		out = append(out, n)
	}
	return out, nil
}

var formats = []string{"text", "markdown", "json", "gobench"}

func checkFormat(format string, valid []string) error {
	for _, v := range valid {
		if format == v {
			return nil
		}
	}
	return fmt.Errorf("unknown --format %q (valid: %s)", format, strings.Join(valid, ", "))
}

// buildWorkloadSpecs turns the flags into validated specs.
func buildWorkloadSpecs(f *runFlags) ([]workloads.Spec, error) {
	var specs []workloads.Spec
	for _, name := range strings.Split(f.workload, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		s, err := workloads.DefaultSpec(name)
		if err != nil {
			return nil, fmt.Errorf("--workload: %w", err)
		}
		s.Keys, s.Seed = f.keys, f.seed
		s.Ops = f.ops
		if s.Ops == 0 {
			s.Ops = f.keys
		}
		s.HotKeys, s.HotAccess, s.ZipfS = f.hotKeys, f.hotAccess, f.zipf
		s.ReadRatio, s.Capacity = f.readRatio, f.capacity
		if f.valueSize != "" {
			if s.ValueMin, s.ValueMax, err = workloads.ParseValueSize(f.valueSize); err != nil {
				return nil, err
			}
		}
		if err := s.Validate(); err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("--workload selects no workload (valid: %s)", strings.Join(workloads.Names(), ", "))
	}
	return specs, nil
}

func runRun(ctx context.Context, stdout, stderr io.Writer, f *runFlags) error {
	// Validate everything before generating or measuring anything.
	factories, err := engine.Resolve(f.adapters)
	if err != nil {
		return usageErrorf("--adapters: %w", err)
	}
	adapters := engine.FactoryNames(factories)
	if err := checkFormat(f.format, formats); err != nil {
		return usageError{err}
	}
	procs, err := parseCPUList(f.cpu)
	if err != nil {
		return usageError{err}
	}
	switch {
	case f.count < 1 || f.count > 1000:
		return usageErrorf("--count must be in 1..1000, got %d", f.count)
	case f.latencyEvery < 1 || f.latencyEvery&(f.latencyEvery-1) != 0:
		return usageErrorf("--latency-every must be a power of two, got %d", f.latencyEvery)
	case f.warmup < 0 || f.warmup > 1:
		return usageErrorf("--warmup must be a fraction in [0,1], got %v", f.warmup)
	case f.coldOps < 1:
		return usageErrorf("--cold-ops must be positive, got %d", f.coldOps)
	}
	specs, err := buildWorkloadSpecs(f)
	if err != nil {
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
	if f.dir != "" {
		if st, err := os.Stat(f.dir); err != nil || !st.IsDir() {
			return usageErrorf("--dir %s: not a directory", f.dir)
		}
	}

	env := machine.Env()
	fmt.Fprintf(stderr, "cachebench: %s, %d logical cores; seed %d; timer cost %.0f ns per time.Now pair\n",
		env.CPUModel, env.LogicalCores, f.seed, env.TimerCostNs)

	cfg := runner.Config{
		Adapters:     adapters,
		Count:        f.count,
		Procs:        procs,
		LatencyEvery: f.latencyEvery,
		Warmup:       f.warmup,
		ColdOps:      f.coldOps,
		Dir:          f.dir,
		Progress:     progress.update,
	}
	for _, s := range specs {
		progress.message(fmt.Sprintf("generating %s (%d keys)", s.Name(), s.Keys))
		w, err := workloads.Generate(s)
		if err != nil {
			return usageError{err}
		}
		cfg.Workloads = append(cfg.Workloads, w)
	}
	res, runErr := runner.Run(ctx, cfg)
	progress.finish()
	if res == nil {
		return runErr
	}
	res.Env = env
	res.Config = map[string]string{
		"adapters":              strings.Join(adapters, ","),
		"workloads":             f.workload,
		"keys":                  strconv.Itoa(f.keys),
		"ops":                   strconv.Itoa(specs[0].Ops),
		"count":                 strconv.Itoa(f.count),
		"cpu":                   f.cpu,
		"seed":                  strconv.FormatUint(f.seed, 10),
		"value_size":            f.valueSize,
		"hot_keys":              strconv.FormatFloat(f.hotKeys, 'g', -1, 64),
		"hot_access":            strconv.FormatFloat(f.hotAccess, 'g', -1, 64),
		"zipf":                  strconv.FormatFloat(f.zipf, 'g', -1, 64),
		"read_ratio":            strconv.FormatFloat(f.readRatio, 'g', -1, 64),
		"capacity":              strconv.FormatFloat(f.capacity, 'g', -1, 64),
		"latency_every":         strconv.Itoa(f.latencyEvery),
		"warmup":                strconv.FormatFloat(f.warmup, 'g', -1, 64),
		"entry_overhead_bytes":  strconv.Itoa(runner.EntryOverhead),
		"insert_headroom":       strconv.FormatFloat(runner.InsertHeadroom, 'g', -1, 64),
		"go_gomaxprocs_default": strconv.Itoa(runtime.GOMAXPROCS(0)),
	}
	for _, e := range res.Errors {
		fmt.Fprintln(stderr, "cachebench: adapter failed:", e)
	}
	for _, e := range res.Skipped {
		fmt.Fprintln(stderr, "cachebench: skipped:", e)
	}
	if err := writeResult(stdout, f.output, f.format, res); err != nil {
		return err
	}
	if runErr != nil {
		if errors.Is(runErr, context.Canceled) {
			return fmt.Errorf("interrupted: the %d measurements taken so far were written", len(res.Measurements))
		}
		return runErr
	}
	if len(res.Errors) > 0 {
		return fmt.Errorf("%d adapter runs failed (see above)", len(res.Errors))
	}
	return nil
}

// writeResult renders res in format to path (atomically) or to stdout.
func writeResult(stdout io.Writer, path, format string, res *report.Result) error {
	render := func(w io.Writer) error {
		switch format {
		case "json":
			return report.WriteJSON(w, res)
		case "gobench":
			return report.WriteGoBench(w, res)
		case "text":
			return report.WriteText(w, res)
		default:
			return report.WriteMarkdown(w, res)
		}
	}
	if path == "" {
		return render(stdout)
	}
	if err := report.WriteFileAtomic(path, render); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
