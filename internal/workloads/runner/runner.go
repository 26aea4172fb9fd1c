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

	total := len(cfg.Workloads) * len(cfg.Procs) * cfg.Count * len(factories)
	done := 0
	// Adapter@workload pairs not to run again: they failed, or do not apply.
	drop := map[string]bool{}
	for _, w := range cfg.Workloads {
		for _, procs := range cfg.Procs {
			// One Measurement per adapter and phase, in first-seen order.
			index := map[string]int{}
			first := len(res.Measurements)
			for rep := 0; rep < cfg.Count; rep++ {
				for _, f := range factories {
					if err := ctx.Err(); err != nil {
						res.Interrupted = true
						finish(res.Measurements[first:], w.Spec.WritesEveryKey())
						return res, err
					}
					if cfg.Progress != nil {
						cfg.Progress(done, total, fmt.Sprintf("%s %s procs=%d rep %d/%d", f.Name, w.Spec.Name(), procs, rep+1, cfg.Count))
					}
					done++
					key := f.Name + "@" + w.Spec.Name()
					if drop[key] {
						continue
					}
					runtime.GOMAXPROCS(procs)
					out, err := runOnce(ctx, &cfg, f, w, procs)
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
						id := f.Name + "\x00" + string(ph.phase)
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
							})
						}
						res.Measurements[i].Samples = append(res.Measurements[i].Samples, ph.sample)
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

// finish sets the flags that must travel with a measurement's figures.
// everyKeyWritten is true for a workload that wrote every key before its
// reads (workloads.Spec.WritesEveryKey).
func finish(ms []report.Measurement, everyKeyWritten bool) {
	for i := range ms {
		m := &ms[i]
		var wrong, errs, misses int64
		for _, s := range m.Samples {
			wrong += s.Wrong
			errs += s.Errors
			misses += s.Misses
		}
		m.Flags = m.Flags[:0]
		if wrong > 0 {
			m.Flags = append(m.Flags, report.CountedFlag(report.FlagWrongValues, wrong))
		}
		if errs > 0 {
			m.Flags = append(m.Flags, report.CountedFlag(report.FlagErrors, errs))
		}
		// Every key was written (insert-lookup, mixed): a miss is an entry
		// the adapter lost (eviction, dropped set, collision).
		if misses > 0 && everyKeyWritten &&
			(m.Phase == report.PhaseLookup || m.Phase == report.PhaseMixed || m.Phase == report.PhaseLookupCold ||
				m.Phase == report.PhaseLookupBatch || m.Phase == report.PhaseReadVector) {
			m.Flags = append(m.Flags, report.CountedFlag(report.FlagLostEntries, misses))
		}
		// An adapter holding more than its budget (an arena cache rounding
		// its size up, an unbounded map) is not comparable on hit ratio.
		var over float64
		for _, s := range m.Samples {
			if s.Held.Over() {
				over = max(over, s.Held.Ratio())
			}
		}
		if over > 0 {
			m.Flags = append(m.Flags, report.CountedFlag(report.FlagOverBudget, int64(math.Round(100*over))))
		}
		if len(m.Flags) == 0 {
			m.Flags = nil
		}
	}
}

type phaseResult struct {
	phase  report.Phase
	procs  int
	note   string
	sample report.Sample
	// reference is the adapter the phase's tables divide by
	// (report.Measurement.Reference), "" for none.
	reference string
}

type runOutput struct {
	config map[string]string
	phases []phaseResult
	// unsupported lists phases this platform cannot run (not failures).
	unsupported []string
}

// runOnce builds a fresh adapter and runs one repetition of w against it.
func runOnce(ctx context.Context, cfg *Config, f engine.Factory, w *workloads.Workload, procs int) (out runOutput, err error) {
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
	// Ctrl-C halts the pass in flight within microseconds (driver.halt).
	halt := new(atomic.Bool)
	defer context.AfterFunc(ctx, func() { halt.Store(true) })()
	d := driver{a: a, w: w, procs: procs, every: cmp.Or(w.Spec.LatencyEvery, cfg.LatencyEvery), limit: cfg.Duration, halt: halt}
	if f.Kind == engine.Network {
		// A network client spends most of an operation waiting: like
		// memtier's clients per thread, each proc drives ConnsPerWorker
		// goroutines, each with its own request in flight.
		d.conns = cfg.Network.ConnsPerWorker
	}
	add := func(phase report.Phase, note string, s report.Sample, p int) {
		out.phases = append(out.phases, phaseResult{phase: phase, procs: p, note: note, sample: s})
	}
	_, isFreezer := a.(engine.Freezer)

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
		s, err := d.pass(w.OpStream, opMixed)
		if err != nil {
			return out, failed(report.FailOps, "mixed", err)
		}
		if f.Kind != engine.Network {
			drain(a) // outside the timed pass: what is held once deferred work is done
			s.Held = ReadOccupancy(a, opts)
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
		s, err := d.pass(w.OpStream, opGetOrSet)
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
			s.Held = ReadOccupancy(a, opts)
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
		s, err = d.pass(w.LookupStream, opReadVector)
		if err != nil {
			return out, failed(report.FailOps, "read-vector", err)
		}
		out.phases = append(out.phases, phaseResult{
			phase: report.PhaseReadVector, procs: procs, sample: s,
			note:      "GetFloat64s of the key's " + strconv.Itoa(workloads.VectorLen) + "-element vector and its sum, checked against the key's",
			reference: workloads.ReadVectorReference,
		})
	case workloads.Trace:
		if isFreezer {
			return out, notApplicable("a write-once store, and a trace replay writes after the build")
		}
		// A trace is a history, not a distribution: replayed twice, its
		// second pass would see the end of the first one cached. It runs
		// once from an empty cache, as the hit-ratio lab replays it, so the
		// figures include the cache's warm-up as the trace has it.
		s, err := d.pass(w.OpStream, opGetOrSet)
		if err != nil {
			return out, failed(report.FailOps, "trace replay", err)
		}
		if err := footprint(a, &s); err != nil {
			return out, failed(report.FailOther, "footprint", err)
		}
		if f.Kind != engine.Network {
			drain(a)
			s.Held = ReadOccupancy(a, opts)
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
