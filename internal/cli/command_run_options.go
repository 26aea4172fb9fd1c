package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/fit"
	"github.com/cachebench/cachebench/internal/machine"
	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/runner"
	"github.com/cachebench/cachebench/internal/workloads/trace"
	"github.com/cachebench/cachebench/internal/workloads/trace/published"
)

// config checks every flag of `cachebench run` before anything is generated
// or measured, and returns the runner's configuration (without workloads),
// the workload specs and the progress line. Every error is a usage error.
func (f *runFlags) config(stderr io.Writer) (runner.Config, []workloads.Spec, *progress, error) {
	var cfg runner.Config
	factories, err := engine.Resolve(f.adapterList())
	if err != nil {
		return cfg, nil, nil, usageErrorf("--adapters: %w", err)
	}
	if err := checkFormat(f.format, formats); err != nil {
		return cfg, nil, nil, usageError{err}
	}
	procs, err := runner.ParseProcs(f.cpu)
	if err != nil {
		return cfg, nil, nil, usageError{err}
	}
	// One reading of a capacity in every command (parse.Fraction): "1"
	// is a count in hitratio, so it is not 100% here either.
	if f.capacity, err = parse.Fraction(f.capacityArg); err != nil {
		return cfg, nil, nil, usageErrorf("--capacity %w", err)
	}
	switch {
	case f.count < 1 || f.count > 1000:
		return cfg, nil, nil, usageErrorf("--count must be in 1..1000, got %d", f.count)
	case f.latencyEvery < 1 || f.latencyEvery&(f.latencyEvery-1) != 0:
		return cfg, nil, nil, usageErrorf("--latency-every must be a power of two, got %d", f.latencyEvery)
	case f.warmup < 0 || f.warmup > 1:
		return cfg, nil, nil, usageErrorf("--warmup must be a fraction in [0,1], got %v", f.warmup)
	case f.coldOps < 1:
		return cfg, nil, nil, usageErrorf("--cold-ops must be positive, got %d", f.coldOps)
	case f.ops < 0:
		// 0 is the default (--keys); a workload that visits every key once
		// (insert-lookup) never reads --ops, so without this a negative
		// count ran and exited 0 there.
		return cfg, nil, nil, usageErrorf("--ops must not be negative, got %d", f.ops)
	case f.missPenalty < 0:
		return cfg, nil, nil, usageErrorf("--miss-penalty must not be negative, got %v", f.missPenalty)
	}
	netOpts, err := f.network(factories)
	if err != nil {
		return cfg, nil, nil, err
	}
	specs, err := workloads.Specs(f.workload, workloads.Params{
		Keys: f.keys, Ops: f.ops, Seed: f.seed, ValueSize: f.valueSize,
		HotKeys: f.hotKeys, HotAccess: f.hotAccess, ZipfS: f.zipf, ReadRatio: f.readRatio, Capacity: f.capacity,
		LatencyEvery: f.latencyEvery,
		Explicit:     f.explicit,
		ResolveTrace: func(arg string) trace.Source { return published.Resolve(arg, "") },
	})
	if err != nil {
		return cfg, nil, nil, usageError{err}
	}
	progress, err := newProgress(f.progress, stderr)
	if err != nil {
		return cfg, nil, nil, usageError{err}
	}
	if f.output != "" {
		if _, err := checkOutput("-o", f.output); err != nil {
			return cfg, nil, nil, err
		}
	}
	if f.dir != "" {
		// A read-only --dir fails here, not in every file store's run.
		if err := checkDir("--dir", f.dir); err != nil {
			return cfg, nil, nil, err
		}
	}
	if err := f.checkFit(specs, factories); err != nil {
		return cfg, nil, nil, err
	}
	cfg = runner.Config{
		Adapters: engine.FactoryNames(factories), Count: f.count, Procs: procs,
		LatencyEvery: f.latencyEvery, Warmup: f.warmup, ColdOps: f.coldOps, Dir: f.dir,
		Floor: !f.noFloor, Progress: progress.update,
		Network: netOpts, Duration: f.duration,
	}
	if f.sloTarget, err = f.openFlags.open(&cfg, procs, factories, f.connsPerWorker); err != nil {
		return cfg, nil, nil, err
	}
	return cfg, specs, progress, nil
}

// adapterList is --adapters, or for a run of read-vector alone without
// --adapters the adapters that hold vectors (every other one would be
// skipped).
func (f *runFlags) adapterList() string {
	if f.explicit != nil && f.explicit("adapters") {
		return f.adapters
	}
	for _, name := range strings.Split(f.workload, ",") {
		if name = strings.TrimSpace(name); name != "" && name != workloads.ReadVector {
			return f.adapters
		}
	}
	return workloads.ReadVectorAdapters
}

// manifest is the effective configuration written into the result.
func (f *runFlags) manifest(cfg runner.Config, specs []workloads.Spec) map[string]string {
	ftoa := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	m := map[string]string{
		"adapters":              strings.Join(cfg.Adapters, ","),
		"workloads":             f.workload,
		"keys":                  perSpec(specs, func(s workloads.Spec) string { return strconv.Itoa(s.Keys) }),
		"ops":                   perSpec(specs, func(s workloads.Spec) string { return strconv.Itoa(s.Ops) }),
		"count":                 strconv.Itoa(f.count),
		"cpu":                   f.cpu,
		"seed":                  strconv.FormatUint(f.seed, 10),
		"value_size":            f.valueSize,
		"hot_keys":              ftoa(f.hotKeys),
		"hot_access":            ftoa(f.hotAccess),
		"zipf":                  ftoa(f.zipf),
		"read_ratio":            ftoa(f.readRatio),
		"capacity":              ftoa(f.capacity),
		"latency_every":         perSpec(specs, func(s workloads.Spec) string { return strconv.Itoa(cmp.Or(s.LatencyEvery, f.latencyEvery)) }),
		"warmup":                ftoa(f.warmup),
		"entry_overhead_bytes":  strconv.Itoa(workloads.EntryOverhead),
		"insert_headroom":       ftoa(workloads.InsertHeadroom),
		"go_gomaxprocs_default": strconv.Itoa(runtime.GOMAXPROCS(0)),
		"duration":              f.duration.String(),
		"miss_penalty":          f.missPenalty.String(),
		"memcached_addr":        strings.Join(f.memcachedAddr, ","),
		"redis_addr":            f.redisAddr,
		"redis_cluster":         strings.Join(f.redisCluster, ","),
		"servers":               strconv.Itoa(f.servers),
		"conns_per_worker":      strconv.Itoa(f.connsPerWorker),
		"pipeline":              strconv.Itoa(f.pipeline),
		"timeout":               f.timeout.String(),
		"floor":                 strconv.FormatBool(cfg.Floor),
	}
	f.openManifest(m)
	return m
}

// measureMachine captures the environment, measures one DRAM miss (a
// dependent-load chase, 0 and not shown if its region cannot be mapped)
// and says both on stderr before anything else is measured.
//
// The measurement writes and chases a region of hundreds of MiB for
// seconds without looking at a context; it runs on a goroutine of its
// own so that Ctrl-C during it ends the command at once (the process
// exits with the goroutine still running, which holds nothing to clean).
func measureMachine(ctx context.Context, progress *progress, seed uint64) (report.Env, error) {
	env := machine.Env()
	progress.message("measuring one DRAM miss (dependent loads)")
	dram := make(chan float64, 1)
	go func() {
		ns, _ := machine.DependentLoadNs(machine.RegionBytes(), machine.DefaultLoads)
		dram <- ns
	}()
	select {
	case env.DependentLoadNs = <-dram:
	case <-ctx.Done():
		return env, fmt.Errorf("run: interrupted while measuring one DRAM miss: %w", ctx.Err())
	}
	// Through println, which clears the status line first: written
	// straight to stderr it ran on after "measuring one DRAM miss".
	progress.println(fmt.Sprintf("cachebench: %s, %d logical cores; seed %d; timer cost %.0f ns per clock-read pair; one DRAM miss %.0f ns; THP %s",
		env.CPUModel, env.LogicalCores, seed, env.TimerCostNs, env.DependentLoadNs, cmp.Or(env.THPMode, "unknown")))
	return env, nil
}

// perSpec is one manifest value across the run's workloads: the value if
// they agree, else "workload=value" for each. A preset (get-or-set/umem)
// sets its own key count, so --keys alone would misreport it.
func perSpec(specs []workloads.Spec, val func(workloads.Spec) string) string {
	same := true
	for _, s := range specs[1:] {
		same = same && val(s) == val(specs[0])
	}
	if same {
		return val(specs[0])
	}
	parts := make([]string, len(specs))
	for i, s := range specs {
		parts[i] = s.Name() + "=" + val(s)
	}
	return strings.Join(parts, ",")
}

// checkFit refuses a run whose estimate (workloads.Spec.Estimate) does not
// fit: every workload's data is held for the whole run, one adapter's
// budget at a time; file stores write into --dir (or the temp dir), one
// instance at a time.
func (f *runFlags) checkFit(specs []workloads.Spec, factories []engine.Factory) error {
	var data, budget, disk int64
	for _, s := range specs {
		d, b, k := s.Estimate()
		data, budget, disk = fit.Add(data, d), max(budget, b), max(disk, k)
	}
	need := fit.Need{What: "run", Memory: fit.Add(data, budget),
		MemoryDetail: fmt.Sprintf("%s of generated workloads and an adapter budget of %s", fit.FormatBytes(data), fit.FormatBytes(budget))}
	for _, fac := range factories {
		if fac.Kind == engine.FileStore {
			need.Dir, need.Disk = cmp.Or(f.dir, os.TempDir()), disk
			need.DiskDetail = "one file store's entries at their mean size + " + strconv.Itoa(workloads.EntryOverhead) + " B"
			break
		}
	}
	return checkFit(need, f.force)
}
