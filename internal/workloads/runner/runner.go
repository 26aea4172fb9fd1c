// Package runner drives pre-generated workloads against adapters and turns
// what it measures into report measurements.
//
// The rules it follows are those of the repository's docs/method.md: nothing is generated
// inside a timed region; throughput is timed over whole passes (one clock
// read per worker pass, not per operation); per-operation latency is sampled
// every Nth operation into per-worker HDR histograms merged at the end;
// every value read back is compared with what was written; repetitions are
// interleaved across adapters (A B C A B C ...) so that machine drift hits
// every adapter alike. Every pass, batched or not, goes through one timed
// path (driver.measure).
package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/machine"
	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
)

// Config is what one run measures.
type Config struct {
	// Adapters are registry names, measured in this order.
	Adapters []string
	// Workloads are generated once each and shared by every adapter.
	Workloads []*workloads.Workload
	// Count is the number of repetitions of each measurement.
	Count int
	// Procs lists the GOMAXPROCS values; one worker runs per proc.
	Procs []int
	// LatencyEvery samples the latency of one operation in this many (a
	// power of two).
	LatencyEvery int
	// Warmup is the fraction of a lookup pass run untimed before it.
	Warmup float64
	// ColdOps bounds the lookups of a cold-page-cache pass (file stores).
	ColdOps int
	// Dir is the scratch directory for file stores (one subdirectory per
	// instance, removed after use).
	Dir string
	// Floor adds the null probe (engine.ProbeName) to the adapters, measured
	// like them, so that the harness floor is reported beside every table.
	Floor bool
	// Progress, if set, is called before each adapter run.
	Progress func(done, total int, desc string)
	// Network is given to every adapter (servers and connections of the
	// network adapters); Workers is set per run to the GOMAXPROCS value.
	Network engine.NetworkOptions
	// Duration, if positive, bounds the wall time of each get-or-set and
	// mixed pass; operations are then counted as run, not as planned.
	Duration time.Duration
	// Rates, if set, run each workload's timed pass (the lookups, the
	// mixed, get-or-set or trace pass, read-vector's reads) open-loop at
	// each of these offered rates in turn, operations per second across
	// the workers (openloop.go); the insert and prefill run as without.
	// AutoRate instead runs the closed loop first and then the
	// AutoFractions of each adapter's closed-loop throughput.
	Rates    []float64
	AutoRate bool
	// Arrivals is the open loop's arrival process: report.ArrivalsUniform
	// (the default) or report.ArrivalsPoisson.
	Arrivals string
	// Interval is the length of an open-loop pass's time-series interval
	// (DefaultInterval when 0).
	Interval time.Duration
	// WaitSpin is how close to an intended start a waiting open-loop
	// worker stops sleeping and spins: 0 calibrates it from this
	// machine's sleep overshoot (spinBelow), a negative value never spins
	// (the worker then starts late by a sleep's overshoot, and uses no
	// CPU while it waits: on a busy machine a spinning worker is
	// preempted for far longer than a sleep overshoots).
	WaitSpin time.Duration
	// ForceGC, if positive, forces a garbage collection (runtime.GC)
	// every ForceGC during each open-loop pass, from another goroutine,
	// so that the corrected latency shows what a full collection costs a
	// caller arriving on schedule; the sample counts every collection of
	// the pass and the forced ones (report.OpenLoop.GCCycles, ForcedGCs).
	ForceGC time.Duration
}

func (c *Config) validate() error {
	switch {
	case len(c.Adapters) == 0:
		return errors.New("runner: no adapters")
	case len(c.Workloads) == 0:
		return errors.New("runner: no workloads")
	case c.Count <= 0:
		return fmt.Errorf("runner: count must be positive, got %d", c.Count)
	case len(c.Procs) == 0:
		return errors.New("runner: no GOMAXPROCS values")
	case c.LatencyEvery <= 0 || c.LatencyEvery&(c.LatencyEvery-1) != 0:
		return fmt.Errorf("runner: latency sampling interval must be a power of two, got %d", c.LatencyEvery)
	case c.Warmup < 0 || c.Warmup > 1:
		return fmt.Errorf("runner: warm-up fraction must be in [0,1], got %v", c.Warmup)
	case c.Arrivals != "" && c.Arrivals != report.ArrivalsUniform && c.Arrivals != report.ArrivalsPoisson:
		return fmt.Errorf("runner: arrivals must be %s or %s, got %q", report.ArrivalsUniform, report.ArrivalsPoisson, c.Arrivals)
	case c.ForceGC < 0:
		return fmt.Errorf("runner: forced-collection interval must not be negative, got %v", c.ForceGC)
	case c.Interval < 0:
		return fmt.Errorf("runner: time-series interval must not be negative, got %v", c.Interval)
	}
	for _, r := range c.Rates {
		if !(r > 0) || math.IsInf(r, 0) {
			return fmt.Errorf("runner: rates must be positive, got %v", r)
		}
	}
	return nil
}

// notApplicable is why an adapter cannot run a workload by design (a
// write-once store in a workload that writes after the build). Run records
// such pairs in Result.Skipped rather than as failures.
type notApplicable string

func (e notApplicable) Error() string { return "not applicable: " + string(e) }

// stepError tags an error with the step of an adapter run that failed, so
// that the result records a stable code next to the message.
type stepError struct {
	code report.FailureCode
	err  error
}

func (e *stepError) Error() string { return e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// failed wraps err as a failure of step code, keeping its text as
// "what: err" so that messages read as they always have.
func failed(code report.FailureCode, what string, err error) error {
	if what != "" {
		err = fmt.Errorf("%s: %w", what, err)
	}
	return &stepError{code: code, err: err}
}

// failureCode is the code of the innermost step err names, or FailOther.
func failureCode(err error) report.FailureCode {
	var se *stepError
	if errors.As(err, &se) {
		return se.code
	}
	return report.FailOther
}

// Run measures every adapter in every workload at every GOMAXPROCS value,
// Count times, and returns the result (without Env, which the caller
// captures). When ctx is cancelled it stops between adapter runs and
// returns what was measured so far with Interrupted set and ctx's error.
func Run(ctx context.Context, cfg Config) (*report.Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	names := cfg.Adapters
	if cfg.Floor && !slices.Contains(names, engine.ProbeName) {
		names = append([]string{engine.ProbeName}, names...)
	}
	factories := make([]engine.Factory, len(names))
	for i, name := range names {
		f, err := engine.Lookup(name)
		if err != nil {
			return nil, err
		}
		factories[i] = f
	}
	res := &report.Result{
		Schema:   report.SchemaVersion,
		Tool:     "cachebench",
		Kind:     report.KindRun,
		Started:  time.Now().UTC(),
		Adapters: map[string]map[string]string{},
	}
	defer func(start time.Time) { res.Duration = report.Duration(time.Since(start)) }(time.Now())
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))

	points := cfg.points()
	total := len(cfg.Workloads) * len(cfg.Procs) * points * cfg.Count * len(factories)
	done := 0
	// Adapter@workload pairs not to run again: they failed, or do not apply.
	drop := map[string]bool{}
	for _, w := range cfg.Workloads {
		for _, procs := range cfg.Procs {
			// One Measurement per adapter and phase, in first-seen order.
			index := map[string]int{}
			first := len(res.Measurements)
			// Each adapter's closed-loop throughput of its timed pass, per
			// repetition: what an automatic sweep's rates are fractions of.
			closed := map[string][]float64{}
			for k := 0; k < points; k++ {
				for rep := 0; rep < cfg.Count; rep++ {
					for _, f := range factories {
						rate := cfg.rateAt(k, closed[f.Name])
						if cfg.AutoRate && k > 0 && rate <= 0 {
							done++
							continue
						}
						if err := ctx.Err(); err != nil {
							res.Interrupted = true
							finish(res.Measurements[first:], w.Spec.WritesEveryKey())
							return res, err
						}
						if cfg.Progress != nil {
							desc := fmt.Sprintf("%s %s procs=%d rep %d/%d", f.Name, w.Spec.Name(), procs, rep+1, cfg.Count)
							if rate > 0 {
								desc += " at " + parse.FormatRate(rate) + "/s"
							}
							cfg.Progress(done, total, desc)
						}
						done++
						key := f.Name + "@" + w.Spec.Name()
						if drop[key] {
							continue
						}
						runtime.GOMAXPROCS(procs)
						out, err := runOnce(ctx, &cfg, f, w, procs, rate)
						if why, ok := err.(notApplicable); ok {
							drop[key] = true
							res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %s: %s", f.Name, w.Spec.Name(), string(why)))
							continue
						}
						if err != nil && ctx.Err() != nil {
							// Cancelled mid-run: the adapter did not fail.
							res.Interrupted = true
							res.InterruptedDuring = fmt.Sprintf("%s: %s procs=%d", f.Name, w.Spec.Name(), procs)
							finish(res.Measurements[first:], w.Spec.WritesEveryKey())
							return res, ctx.Err()
						}
						if err != nil {
							drop[key] = true
							res.Errors = append(res.Errors, report.Failure{
								Code: failureCode(err), Adapter: f.Name, Workload: w.Spec.Name(), Procs: procs, Message: err.Error(),
							})
							continue
						}
						if _, ok := res.Adapters[key]; !ok {
							res.Adapters[key] = out.config
							for _, u := range out.unsupported {
								res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %s: %s", f.Name, w.Spec.Name(), u))
							}
						}
						for _, ph := range out.phases {
							if k > 0 && ph.rate == 0 {
								// Closed phases (the insert) are recorded at the
								// first rate point only.
								continue
							}
							if cfg.AutoRate && k == 0 && timedPhase(ph.phase) {
								closed[f.Name] = append(closed[f.Name], ph.sample.OpsPerSec)
							}
							id := f.Name + "\x00" + string(ph.phase) + "\x00" + strconv.FormatFloat(ph.rate, 'g', -1, 64)
							i, ok := index[id]
							if !ok {
								i = len(res.Measurements)
								index[id] = i
								res.Measurements = append(res.Measurements, report.Measurement{
									Adapter:   f.Name,
									Workload:  w.Spec.Name(),
									Phase:     ph.phase,
									Procs:     ph.procs,
									Keys:      w.Spec.Keys,
									Note:      ph.note,
									Reference: ph.reference,
									Rate:      ph.rate,
									Arrivals:  ph.arrivals,
								})
							}
							res.Measurements[i].Samples = append(res.Measurements[i].Samples, ph.sample)
						}
					}
				}
			}
			finish(res.Measurements[first:], w.Spec.WritesEveryKey())
		}
	}
	if cfg.Progress != nil {
		cfg.Progress(total, total, "done")
	}
	return res, nil
}

type phaseResult struct {
	phase  report.Phase
	procs  int
	note   string
	sample report.Sample
	// reference is the adapter the phase's tables divide by
	// (report.Measurement.Reference), "" for none.
	reference string
	// rate and arrivals are those of an open-loop phase (0 and "" for a
	// closed one).
	rate     float64
	arrivals string
}

// timedPhase reports whether phase is one that driver.timed runs, and so
// open-loop in a run with rates.
func timedPhase(phase report.Phase) bool {
	return phase == report.PhaseLookup || phase == report.PhaseMixed || phase == report.PhaseGetOrSet ||
		phase == report.PhaseReadVector
}

type runOutput struct {
	config map[string]string
	phases []phaseResult
	// unsupported lists phases this platform cannot run (not failures).
	unsupported []string
}

// runOnce builds a fresh adapter and runs one repetition of w against it.
// At a positive rate its timed pass runs open-loop (driver.timed).
func runOnce(ctx context.Context, cfg *Config, f engine.Factory, w *workloads.Workload, procs int, rate float64) (out runOutput, err error) {
	opts := w.Budget()
	opts.Seed = w.Spec.Seed
	if f.Kind == engine.FileStore {
		base := cfg.Dir
		if base == "" {
			base = os.TempDir()
		}
		dir, err := os.MkdirTemp(base, "cachebench-"+f.Name+"-")
		if err != nil {
			return out, failed(report.FailScratchDir, "scratch dir", err)
		}
		defer os.RemoveAll(dir)
		opts.Dir = dir
	}
	opts.Network = cfg.Network
	opts.Network.Workers = procs
	// An in-memory adapter's lookups depend on how much of its memory
	// got huge pages: read the process's amount before the constructor's
	// clock starts (the kernel walks the page tables to answer), and
	// again after the insert.
	huge0 := int64(-1) // not read
	if w.Spec.Scenario == workloads.InsertLookup && f.Kind == engine.InMemory {
		if n, err := machine.AnonHugeBytes(); err == nil {
			huge0 = n
		}
	}
	t0 := time.Now()
	a, err := f.New(opts)
	created := time.Since(t0)
	if err != nil {
		return out, failed(report.FailNew, "new", err)
	}
	defer func() {
		// A panic may have left the adapter's locks held, and its Close
		// would wait for them forever: crash with the panic instead.
		if p := recover(); p != nil {
			panic(p)
		}
		if cerr := a.Close(); cerr != nil && err == nil {
			err = failed(report.FailClose, "close", cerr)
		}
		// Leave no garbage of this adapter to the next one's figures.
		runtime.GC()
		debug.FreeOSMemory()
	}()
	out.config = adapterConfig(a, opts)
	// Ctrl-C halts the pass in flight within microseconds (driver.halt),
	// and makes a network adapter's requests in flight return at once
	// (engine.Interrupter) rather than after their timeout: the loops look
	// at halt only every few operations.
	halt := new(atomic.Bool)
	defer context.AfterFunc(ctx, func() {
		halt.Store(true)
		if i, ok := a.(engine.Interrupter); ok {
			i.Interrupt()
		}
	})()
	d := driver{a: a, w: w, procs: procs, every: cmp.Or(w.Spec.LatencyEvery, cfg.LatencyEvery), limit: cfg.Duration, halt: halt,
		rate: rate, arrivals: cmp.Or(cfg.Arrivals, report.ArrivalsUniform), interval: cmp.Or(cfg.Interval, DefaultInterval), spin: cfg.WaitSpin, forceGC: cfg.ForceGC}
	if f.Kind == engine.Network {
		// A network client spends most of an operation waiting: like
		// memtier's clients per thread, each proc drives ConnsPerWorker
		// goroutines, each with its own request in flight.
		d.conns = cfg.Network.ConnsPerWorker
	}
	add := func(phase report.Phase, note string, s report.Sample, p int) {
		ph := phaseResult{phase: phase, procs: p, note: note, sample: s}
		if s.Open != nil {
			s.Open.ForcedGCs = d.forced
			ph.sample = s
			ph.rate, ph.arrivals = rate, d.arrivals
			ph.note = joinNote(note, d.openNote())
		}
		out.phases = append(out.phases, ph)
	}
	_, isFreezer := a.(engine.Freezer)
	held := func() *report.Held {
		h := ReadOccupancy(a, opts)
		h.Unbounded = f.Unbounded
		return h
	}

	switch w.Spec.Scenario {
	case workloads.InsertLookup:
		s, note, err := d.insert(w.InsertStream, opInsert)
		if err != nil {
			return out, failed(report.FailInsert, "", err)
		}
		if f.Kind == engine.InMemory {
			// Work done in New (memory backed up front, say) is no
			// part of the insert figures: the tables show it beside
			// them.
			s.NewNs = float64(created.Nanoseconds())
			if huge0 >= 0 {
				if huge1, err := machine.AnonHugeBytes(); err == nil {
					s.HugeBytes = max(huge1-huge0, 0)
				}
			}
		}
		add(report.PhaseInsert, note, s, procs)
		if err := d.readPhases(ctx, cfg, w.LookupStream, add); err != nil {
			return out, err
		}
	case workloads.Mixed:
		if isFreezer {
			return out, notApplicable("a write-once store, and the mixed scenario writes after the build")
		}
		if _, _, err := d.insert(w.InsertStream, opInsert); err != nil {
			return out, failed(report.FailPrefill, "prefill", err)
		}
		d.warm(w.OpStream, cfg.Warmup, opMixed)
		s, err := d.timed(w.OpStream, opMixed)
		if err != nil {
			return out, failed(report.FailOps, "mixed", err)
		}
		if f.Kind != engine.Network {
			drain(a) // outside the timed pass: what is held once deferred work is done
			s.Held = held()
		}
		add(report.PhaseMixed, strings.TrimPrefix(durationNote(cfg), "; "), s, procs)
	case workloads.GetOrSet:
		if isFreezer {
			return out, notApplicable("a write-once store, and get-or-set writes after the build")
		}
		// Run the sequence once untimed so the timed pass sees a cache in
		// its steady state rather than an empty one.
		if _, err := d.pass(w.OpStream, opGetOrSet); err != nil {
			return out, failed(report.FailOps, "get-or-set (untimed warm-up pass)", err)
		}
		drain(a)
		s, err := d.timed(w.OpStream, opGetOrSet)
		if err != nil {
			return out, failed(report.FailOps, "get-or-set", err)
		}
		if err := footprint(a, &s); err != nil {
			return out, failed(report.FailOther, "footprint", err)
		}
		if f.Kind != engine.Network {
			// Network caches report against their servers' own limits
			// (Held / limit, above); the others against the run's budget.
			drain(a) // outside the timed pass: what is held once deferred work is done
			s.Held = held()
		}
		add(report.PhaseGetOrSet, "cache warmed by one untimed pass of the same sequence"+durationNote(cfg), s, procs)
	case workloads.ReadVector:
		if _, ok := a.(engine.Float64sStore); !ok {
			return out, notApplicable("holds no float64 vectors (engine.Float64sStore); read-vector runs the adapters of group vectors")
		}
		s, note, err := d.insert(w.InsertStream, opSetVector)
		if err != nil {
			return out, failed(report.FailInsert, "", err)
		}
		add(report.PhaseInsert, note, s, procs)
		d.warm(w.LookupStream, cfg.Warmup, opReadVector)
		s, err = d.timed(w.LookupStream, opReadVector)
		if err != nil {
			return out, failed(report.FailOps, "read-vector", err)
		}
		add(report.PhaseReadVector, "GetFloat64s of the key's "+strconv.Itoa(workloads.VectorLen)+"-element vector and its sum, checked against the key's", s, procs)
		out.phases[len(out.phases)-1].reference = workloads.ReadVectorReference
	case workloads.Trace:
		if isFreezer {
			return out, notApplicable("a write-once store, and a trace replay writes after the build")
		}
		// A trace is a history, not a distribution: replayed twice, its
		// second pass would see the end of the first one cached. It runs
		// once from an empty cache, as the hit-ratio lab replays it, so the
		// figures include the cache's warm-up as the trace has it.
		s, err := d.timed(w.OpStream, opGetOrSet)
		if err != nil {
			return out, failed(report.FailOps, "trace replay", err)
		}
		if err := footprint(a, &s); err != nil {
			return out, failed(report.FailOther, "footprint", err)
		}
		if f.Kind != engine.Network {
			drain(a)
			s.Held = held()
		}
		note := "the trace replayed once from an empty cache"
		if n := d.workers(); n > 1 {
			note += fmt.Sprintf(", split into %d contiguous parts, one per worker", n)
		}
		add(report.PhaseGetOrSet, note+durationNote(cfg), s, procs)
	}
	// The adapter's own counters (evictions, collisions, retried sets)
	// travel with its configuration; Run keeps those of the first
	// repetition.
	if st, ok := a.(engine.Statser); ok {
		for k, v := range st.Stats() {
			out.config["stats."+k] = strconv.FormatUint(v, 10)
		}
	}
	out.unsupported = d.unsupported
	return out, ctx.Err()
}

func adapterConfig(a engine.Adapter, opts engine.Options) map[string]string {
	c := map[string]string{}
	if cf, ok := a.(engine.Configurer); ok {
		for k, v := range cf.Config() {
			c[k] = v
		}
	}
	c["budget.entries"] = strconv.Itoa(opts.Entries)
	c["budget.memory_bytes"] = strconv.FormatInt(opts.MemoryBytes, 10)
	return c
}

func drain(a engine.Adapter) {
	if dr, ok := a.(engine.Drainer); ok {
		dr.Drain()
	}
}
