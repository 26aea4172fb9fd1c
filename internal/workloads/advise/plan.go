package advise

import (
	"fmt"
	"strings"
	"time"

	"github.com/cachebench/cachebench/internal/fit"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/gcpause"
)

// Repetitions of the get-or-set pass, the one the verdict ranks on.
const (
	// MinReps is the fewest repetitions with which the Mann-Whitney test
	// can tell two adapters apart (report.MinRankSamples).
	MinReps = report.MinRankSamples
	// MaxReps is what the plan stops at: run's default --count.
	MaxReps = 5
)

// The cost model of the plan: wall time per operation of any pass,
// including the adapter's construction and the collection after it, and
// per key and per value byte of generating a workload, for one worker.
// They are deliberately above what the passes take on a 2-core machine
// (about 0.3 to 1 µs per get-or-set request at 1M keys of 1 KiB), so that
// the plan fits the budget; the run also checks the clock before every
// stage and leaves out what no longer fits.
const (
	planOpNs       = 1000
	planGenKeyNs   = 2000
	planGenByteNs  = 1
	planChildFixed = 700 * time.Millisecond
	planChildKeyNs = 2500
	// gcReadTime bounds each gc-pause child's reads across collections.
	gcReadTime = time.Second
	// gcGOGC is the collector setting of the gc-pause children: Go's own
	// default, which a service runs with unless it tuned it.
	gcGOGC = 100
)

// Stage is one part of the plan.
type Stage struct {
	// Name is "get-or-set", "trace", "insert-lookup", "mixed" or "gc-pause".
	Name string `json:"name"`
	// Reps is the repetitions planned (0: left out, Why says why).
	Reps int `json:"reps"`
	// Estimate is the planned wall time of all its repetitions.
	Estimate time.Duration `json:"estimate_ns"`
	Why      string        `json:"why,omitempty"`
	// Ran is the repetitions run; Took their wall time.
	Ran  int           `json:"ran"`
	Took time.Duration `json:"took_ns"`
}

// Plan is what a run measures within its budget.
type Plan struct {
	Budget time.Duration `json:"budget_ns"`
	// Estimate is the sum of the planned stages' estimates.
	Estimate time.Duration `json:"estimate_ns"`
	Stages   []Stage       `json:"stages"`
}

// stage returns the stage called name.
func (p *Plan) stage(name string) *Stage {
	for i := range p.Stages {
		if p.Stages[i].Name == name {
			return &p.Stages[i]
		}
	}
	return nil
}

// shape is what the cost model needs of the question.
type shape struct {
	adapters   int
	keys, ops  int   // of the get-or-set pass (a trace: its objects, requests)
	passes     int   // get-or-set passes per repetition (2: warmed, 1: trace)
	valueBytes int64 // mean value size
	procs      int
	trace      bool
	count      int // --count, 0: the plan's choice
	gc         bool
}

func opsTime(ops int64, procs int) time.Duration {
	// One worker per proc; two procs share the machine's memory
	// bandwidth, so the model credits them with less than twice the speed.
	speed := 1 + 0.5*float64(procs-1)
	return time.Duration(float64(ops*planOpNs) / speed)
}

func genTime(keys int, valueBytes int64) time.Duration {
	return time.Duration(int64(keys)*(planGenKeyNs+valueBytes*planGenByteNs)) * time.Nanosecond
}

// newPlan fills the budget in order of what the answer needs: one
// get-or-set repetition (without it there is no answer: refused),
// insert-lookup once, get-or-set up to MinReps, mixed once, one gc-pause
// child per adapter, then get-or-set up to MaxReps.
func newPlan(s shape, budget time.Duration) (*Plan, error) {
	a := int64(s.adapters)
	gosRep := opsTime(a*int64(s.passes*s.ops), s.procs)
	gosGen := genTime(s.keys, s.valueBytes)
	ilRep := opsTime(a*int64(2*s.keys), s.procs)
	ilGen := genTime(s.keys, s.valueBytes)
	mixRep := opsTime(a*int64(s.keys+s.ops), s.procs)
	gcAll := time.Duration(a) * (planChildFixed + gcReadTime + time.Duration(int64(s.keys)*planChildKeyNs))

	gosName := "get-or-set"
	if s.trace {
		gosName = "trace"
	}
	p := &Plan{Budget: budget, Stages: []Stage{{Name: gosName}, {Name: "insert-lookup"}, {Name: "mixed"}, {Name: "gc-pause"}}}
	if s.trace {
		p.Stages = append(p.Stages, Stage{Name: "hitratio"})
	}
	left := budget
	take := func(d time.Duration) bool {
		if d > left {
			return false
		}
		left -= d
		return true
	}
	first := gosGen + gosRep
	minReps := 1
	if s.count > 0 {
		minReps = s.count
		first = gosGen + time.Duration(s.count)*gosRep
	}
	if !take(first) {
		what := fmt.Sprintf("one %s repetition of %d adapters at %d keys", gosName, s.adapters, s.keys)
		if s.count > 0 {
			what = fmt.Sprintf("%d %s repetitions (--count) of %d adapters at %d keys", s.count, gosName, s.adapters, s.keys)
		}
		return nil, inputErrorf("--budget %v is too small to measure anything: %s needs about %v; give --budget %v or more, or fewer --adapters, or fewer --keys",
			budget, what, approx(first), roundUp(time.Duration(float64(first)*1.2)))
	}
	g, il, mix, gc := p.stage(gosName), p.stage("insert-lookup"), p.stage("mixed"), p.stage("gc-pause")
	g.Reps, g.Estimate = minReps, first
	addGos := func(upTo int) {
		for g.Reps < upTo && s.count == 0 && take(gosRep) {
			g.Reps++
			g.Estimate += gosRep
		}
	}
	if take(ilGen + ilRep) {
		il.Reps, il.Estimate = 1, ilGen+ilRep
	} else {
		il.Why = "left out: the budget does not allow it"
	}
	addGos(MinReps)
	if s.trace {
		// The hit-ratio lab's replay at the same capacity, beside Belady's
		// OPT: one pass of the trace per adapter, drained after every Set.
		lab := p.stage("hitratio")
		if est := opsTime(a*int64(s.ops), 1); take(est) {
			lab.Reps, lab.Estimate = 1, est
		} else {
			lab.Why = "left out: the budget does not allow it"
		}
	}
	switch {
	case s.trace:
		mix.Why = "not run: a trace is a history of requests, with no read ratio of its own"
	case take(genTime(s.keys, s.valueBytes) + mixRep):
		mix.Reps, mix.Estimate = 1, genTime(s.keys, s.valueBytes)+mixRep
	default:
		mix.Why = "left out: the budget does not allow it"
	}
	switch {
	case !s.gc:
		gc.Why = "not run (gc-pause children disabled)"
	case take(gcAll):
		gc.Reps, gc.Estimate = 1, gcAll
	default:
		gc.Why = "left out: the budget does not allow it"
	}
	addGos(MaxReps)
	for _, st := range p.Stages {
		p.Estimate += st.Estimate
	}
	return p, nil
}

// approx rounds d for a message: milliseconds below a second.
func approx(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

// roundUp rounds d up to a whole number of seconds (minutes above 2m).
func roundUp(d time.Duration) time.Duration {
	unit := time.Second
	if d > 2*time.Minute {
		unit = time.Minute
	}
	return (d + unit - 1) / unit * unit
}

// Describe is the line printed before a run starts: what is planned and
// how long it is expected to take.
func (p *Plan) Describe() string {
	var parts []string
	for _, s := range p.Stages {
		switch {
		case s.Reps > 0:
			parts = append(parts, fmt.Sprintf("%s ×%d (~%v)", s.Name, s.Reps, approx(s.Estimate)))
		case s.Why != "":
			parts = append(parts, s.Name+" "+s.Why)
		}
	}
	return fmt.Sprintf("plan: %s; estimate %v within a budget of %v", strings.Join(parts, ", "), approx(p.Estimate), p.Budget)
}

// gcConfig is the gc-pause run at the question's key count.
func gcConfig(keys int, valueBytes int64, seed uint64, adapters []string) gcpause.Config {
	vs := min(max(int(valueBytes), gcpause.MinValueSize), gcpause.MaxValueSize)
	return gcpause.Config{
		Params: gcpause.Params{
			Entries: max(keys, 1), ValueSize: vs, GOGC: gcGOGC, Seed: seed,
			Verify: min(keys, 1000), GCReads: 1000, GCReadTime: gcReadTime,
		},
		Adapters: adapters,
		Count:    1,
	}
}

// Need is the memory the run of o holds at its peak, by the runner's and
// gc-pause's own estimates (workloads.Spec.Estimate, gcpause's budget):
// one workload and one adapter's budget at a time, or one gc-pause child.
// A trace's size is known only once it is read: its estimate is 0.
func Need(o Options) (fit.Need, error) {
	q, err := check(o)
	if err != nil {
		return fit.Need{}, err
	}
	gos, il, mixed, err := q.specs()
	if err != nil {
		return fit.Need{}, err
	}
	var peak int64
	detail := ""
	for _, s := range []workloads.Spec{gos, il, mixed} {
		if s.Keys == 0 {
			continue
		}
		data, budget, _ := s.Estimate()
		if need := fit.Add(data, budget); need > peak {
			peak = need
			detail = fmt.Sprintf("%s: %s of generated data and an adapter budget of %s", s.Name(), fit.FormatBytes(data), fit.FormatBytes(budget))
		}
	}
	if !o.NoGC && gos.Keys > 0 {
		c := gcConfig(gos.Keys, int64(q.valueMin+q.valueMax)/2, o.Seed, nil)
		if b := c.Budget().MemoryBytes; b > peak {
			peak = b
			detail = "one gc-pause child holding every key: " + fit.FormatBytes(b)
		}
	}
	return fit.Need{What: "advise", Memory: peak, MemoryDetail: detail}, nil
}
