package advise

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/gcpause"
	"github.com/cachebench/cachebench/internal/workloads/hitratio"
	"github.com/cachebench/cachebench/internal/workloads/runner"
)

// Result is one advise run: the question, the plan as run, the answer,
// and every measurement it rests on (Run: the runner's; GC: gc-pause's).
type Result struct {
	Question Question `json:"question"`
	Plan     Plan     `json:"plan"`
	Answer
	Run *report.Result `json:"run,omitempty"`
	GC  *report.Result `json:"gc,omitempty"`
	// Lab is the hit-ratio lab's replay of a trace at the capacity, with
	// Belady's OPT (nil for a synthetic access pattern).
	Lab *hitratio.Result `json:"hitratio,omitempty"`
	// Partial is set when the run was interrupted: the figures are those
	// measured before.
	Partial bool `json:"partial,omitempty"`
}

// Question is the shape asked about, as the workloads have it.
type Question struct {
	Keys        int           `json:"keys"`
	Ops         int           `json:"ops"`
	ValueMin    int           `json:"value_min"`
	ValueMax    int           `json:"value_max"`
	MeanValue   float64       `json:"mean_value_bytes"`
	Access      Access        `json:"access"`
	Capacity    string        `json:"capacity"`
	Entries     int           `json:"capacity_entries"`
	MemoryBytes int64         `json:"capacity_memory_bytes"`
	Fraction    float64       `json:"capacity_fraction"`
	ReadRatio   float64       `json:"read_ratio"`
	CPU         int           `json:"cpu"`
	MissPenalty time.Duration `json:"miss_penalty_ns"`
	Adapters    []string      `json:"adapters"`
	Seed        uint64        `json:"seed"`
	Workloads   []string      `json:"workloads"`
}

// Run answers the question of o within its budget. Bad options give an
// *InputError before anything is measured. When ctx is cancelled it
// returns what was measured so far, Partial set, with ctx's error.
func Run(ctx context.Context, o Options) (*Result, error) {
	start := time.Now() // the budget counts the generation of the first workload too
	q, err := check(o)
	if err != nil {
		return nil, err
	}
	gosSpec, ilSpec, mixSpec, err := q.specs()
	if err != nil {
		return nil, err
	}
	names := engine.FactoryNames(q.factories)
	res := &Result{Question: Question{
		Access: o.Access, Capacity: o.Capacity, Fraction: q.fraction, ReadRatio: o.ReadRatio, CPU: o.CPU,
		MissPenalty: o.MissPenalty, Adapters: names, Seed: o.Seed, ValueMin: q.valueMin, ValueMax: q.valueMax,
	}}
	o.log("generating %s", gosSpec.Name())
	gosW, err := workloads.GenerateContext(ctx, gosSpec)
	if err != nil {
		if ctx.Err() != nil {
			res.Partial = true
			return res, ctx.Err()
		}
		// A trace that cannot be read, or data that cannot be made.
		return nil, &InputError{err}
	}
	trace := gosSpec.Scenario == workloads.Trace
	budget := gosW.Budget()
	res.Question.Keys, res.Question.Ops = gosW.Spec.Keys, gosW.Spec.Ops
	res.Question.MeanValue = gosW.AvgEntryBytes() - float64(gosW.KeyBytes)/float64(gosW.Spec.Keys)
	res.Question.Entries, res.Question.MemoryBytes = budget.Entries, budget.MemoryBytes
	if trace {
		res.Question.Fraction = gosW.Spec.Capacity
		// Inserts, lookups and the GC cost at the trace's shape: its
		// objects, at their mean size.
		vs := min(max(int(res.Question.MeanValue+0.5), gcpause.MinValueSize), 1<<20)
		ilSpec, err = workloads.DefaultSpec(workloads.InsertLookup)
		if err == nil {
			ilSpec.Keys, ilSpec.Ops, ilSpec.Seed, ilSpec.ValueMin, ilSpec.ValueMax = gosW.Spec.Keys, gosW.Spec.Keys, o.Seed, vs, vs
			err = ilSpec.Validate()
		}
		if err != nil {
			return nil, &InputError{err}
		}
	}
	passes := 2
	if trace {
		passes = 1
	}
	plan, err := newPlan(shape{
		adapters: len(names), keys: gosW.Spec.Keys, ops: gosW.Spec.Ops, passes: passes,
		valueBytes: int64(res.Question.MeanValue), procs: o.CPU, trace: trace, count: o.Count, gc: !o.NoGC,
	}, o.Budget)
	if err != nil {
		return nil, err
	}
	res.Plan = *plan
	o.log("%s", plan.Describe())

	// A stage starts only if its estimate still fits what is left of the
	// budget. The estimates are rescaled by how much longer than planned
	// the first get-or-set repetition took (slow, at least 1): a busy or
	// slower machine loses the later stages, not the budget.
	slow := 1.0
	fits := func(est time.Duration) bool {
		return time.Since(start)+time.Duration(float64(est)*slow) <= o.Budget
	}
	cfg := func(w *workloads.Workload) runner.Config {
		return runner.Config{Adapters: names, Workloads: []*workloads.Workload{w}, Count: 1, Procs: []int{o.CPU},
			LatencyEvery: 64, Warmup: 0.1, ColdOps: 1, Progress: o.Progress}
	}
	run := &report.Result{}
	res.Run = run
	var runErr error
	// stage runs reps repetitions of w, one runner call each (the
	// runner interleaves the adapters within a call), while the budget
	// holds; the first always runs.
	stage := func(st *Stage, w *workloads.Workload, per time.Duration) {
		t0 := time.Now()
		defer func() { st.Took = time.Since(t0) }()
		for rep := 0; rep < st.Reps && runErr == nil; rep++ {
			if rep > 0 && !fits(per) && o.Count == 0 {
				st.Why = fmt.Sprintf("ran %d of %d planned repetitions: the budget ran out", rep, st.Reps)
				break
			}
			t1 := time.Now()
			r, err := runner.Run(ctx, cfg(w))
			if st == &res.Plan.Stages[0] && rep == 0 && per > 0 {
				if slow = max(1, float64(time.Since(t1))/float64(per)); slow > 1.5 {
					o.log("the first repetition took %v, %.1f× its estimate: the later stages are estimated %.1f× longer", approx(time.Since(t1)), slow, slow)
				}
			}
			if r != nil {
				mergeRun(run, r)
			}
			if err != nil {
				runErr = err
				break
			}
			st.Ran++
		}
	}
	g := &res.Plan.Stages[0]
	per := time.Duration(0)
	if g.Reps > 0 {
		per = g.Estimate / time.Duration(g.Reps)
	}
	o.log("measuring %s ×%d", gosW.Spec.Name(), g.Reps)
	stage(g, gosW, per)
	res.Question.Workloads = append(res.Question.Workloads, gosW.Spec.Name())
	gosW = nil // the next workloads replace it in memory
	if lab := res.Plan.stage("hitratio"); lab != nil && lab.Reps > 0 && runErr == nil {
		if !fits(lab.Estimate) {
			lab.Why = "left out: the budget ran out before it"
		} else {
			o.log("replaying %s in the hit-ratio lab", gosSpec.TraceSource.DisplayName())
			t0 := time.Now()
			r, err := hitratio.Run(ctx, hitratio.Config{
				Traces: []hitratio.TraceInput{gosSpec.TraceSource}, Capacities: []hitratio.Capacity{{Fraction: q.fraction}},
				Adapters: names, Jobs: 1, Progress: o.Progress,
			})
			lab.Took = time.Since(t0)
			switch {
			case err != nil && ctx.Err() != nil:
				runErr = ctx.Err()
			case err != nil:
				lab.Why = "failed: " + err.Error()
			default:
				res.Lab, lab.Ran = r, 1
			}
		}
	}
	for _, item := range []struct {
		name string
		spec workloads.Spec
	}{{"insert-lookup", ilSpec}, {"mixed", mixSpec}} {
		st := res.Plan.stage(item.name)
		if runErr != nil || st.Reps == 0 {
			continue
		}
		if !fits(st.Estimate) {
			st.Why = "left out: the budget ran out before it"
			continue
		}
		o.log("measuring %s", item.spec.Name())
		w, err := workloads.GenerateContext(ctx, item.spec)
		if err != nil {
			runErr = err
			break
		}
		stage(st, w, st.Estimate)
		res.Question.Workloads = append(res.Question.Workloads, item.spec.Name())
	}
	if gc := res.Plan.stage("gc-pause"); runErr == nil && gc.Reps > 0 {
		if !fits(gc.Estimate) {
			gc.Why = "left out: the budget ran out before it"
		} else {
			o.log("measuring gc-pause at %d entries", res.Question.Keys)
			t0 := time.Now()
			gcfg := gcConfig(res.Question.Keys, int64(res.Question.MeanValue), o.Seed, names)
			gcfg.Progress = o.Progress
			r, err := gcpause.Measure(ctx, gcfg)
			gc.Took = time.Since(t0)
			res.GC = r
			if err != nil && ctx.Err() != nil {
				runErr = ctx.Err()
			} else if r != nil {
				gc.Ran = 1
			}
		}
	}
	res.Answer = analyse(res)
	if runErr != nil && ctx.Err() != nil {
		res.Partial = true
		return res, ctx.Err()
	}
	return res, runErr
}

// mergeRun adds the measurements of r (one repetition) to run: samples
// of the same adapter, workload and phase are pooled, flags united.
func mergeRun(run, r *report.Result) {
	if run.Schema == 0 {
		*run = *r
		run.Measurements = append([]report.Measurement(nil), r.Measurements...)
		return
	}
	run.Errors = append(run.Errors, r.Errors...)
	run.Skipped = append(run.Skipped, r.Skipped...)
	run.Interrupted = run.Interrupted || r.Interrupted
	run.Duration += r.Duration
	for k, v := range r.Adapters {
		if _, ok := run.Adapters[k]; !ok {
			if run.Adapters == nil {
				run.Adapters = map[string]map[string]string{}
			}
			run.Adapters[k] = v
		}
	}
next:
	for _, m := range r.Measurements {
		for i := range run.Measurements {
			have := &run.Measurements[i]
			if have.Adapter == m.Adapter && have.Workload == m.Workload && have.Phase == m.Phase && have.Procs == m.Procs {
				have.Samples = append(have.Samples, m.Samples...)
				for _, f := range m.Flags {
					if _, ok := have.Flag(f.Name); !ok {
						have.Flags = append(have.Flags, f)
					}
				}
				continue next
			}
		}
		run.Measurements = append(run.Measurements, m)
	}
}

// IsInput reports whether err is a fault of the question (exit 2).
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
