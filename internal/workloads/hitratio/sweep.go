// Package hitratio replays request traces through cache adapters at a
// sweep of capacities and reports object and byte hit ratios, next to
// Belady's optimal policy (OPT) computed from the trace's next-request
// times: the ceiling no cache of the same entry count can beat.
//
// Every trace is first rewritten once into a file of dense object
// numbers, sizes and next-request times (trace.Normalize), which each
// adapter and OPT then stream; nothing holds the trace in memory. Each (adapter, capacity)
// replay runs on one goroutine with a fresh adapter, as get-or-set: Get,
// and Set the object on a miss.
//
// A sampled sweep (Config.Sample) normalizes only the requests of the
// objects a seeded key hash keeps and scales every budget by the rate, so
// that its time, memory and disk follow the sample, not the trace; each
// cell then reports the adjusted estimate for the whole trace and its
// standard error (sample.go).
package hitratio

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/fileio"
	"github.com/cachebench/cachebench/internal/fit"
	"github.com/cachebench/cachebench/internal/machine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// Schema is the version of the JSON result.
// Version 2: typed flags, per-trace capacities, marked cells.
const Schema = 2

// TraceInput names one trace to replay: a file on disk or an embedded
// one (its Format "" guesses from the name).
type TraceInput = trace.Source

// Config is what one sweep does.
type Config struct {
	Traces     []TraceInput
	Capacities []Capacity
	// CapacitiesFor, if set, gives each trace its own capacities from its
	// summary instead of Capacities (the real-trace suite's rule).
	CapacitiesFor func(trace.Summary) []Capacity
	Adapters      []string // registry names; OPT is always added
	// Jobs is how many replays run at once (each on its own goroutine
	// with its own adapter); 1 gives the quietest timings.
	Jobs int
	// Async lets caches that maintain their policy on another goroutine
	// (otter, theine, ristretto) do so as they would in production
	// instead of being drained after every Set; see replayAdapter.
	Async bool
	// Repeat is how many times each adapter replays each cell, with a
	// fresh adapter each time (0 and 1: once). A cell then reports the
	// replay with the median object hit ratio (the lower of the two
	// middle ones for an even count) and lists every replay's in
	// Row.Runs: caches that maintain their policy on another goroutine,
	// or hash and sample with random seeds, give different figures from
	// one replay to the next, and the best of several caches in one
	// replay each is the best of their noise. OPT and the reference
	// policies are deterministic and replay once.
	Repeat int
	// Dir holds the normalized copies of the traces (system temp if ""),
	// files without a name (trace.Normalized) that take its disk space.
	Dir string
	// Sample, if set, replays a sample of each trace's objects chosen by
	// key hash into caches scaled by the sampling rate (see sample.go);
	// every cell then states its standard error.
	Sample *trace.Sampling
	// Progress, if set, is called as replays finish.
	Progress func(done, total int, what string)
}

// Result is the outcome of a sweep; Kind tells it from `run` results.
type Result struct {
	Schema  int        `json:"schema"`
	Kind    string     `json:"kind"`
	Started time.Time  `json:"started"`
	Env     report.Env `json:"env"`
	// Capacities are those of every trace; each TraceResult lists its own.
	Capacities []string `json:"capacities,omitempty"`
	Adapters   []string `json:"adapters"`
	// Async is Config.Async: asynchronous caches were not drained after
	// every Set, so their small cells may have held more than their budget.
	Async bool `json:"async,omitempty"`
	// Repeat is Config.Repeat when above 1.
	Repeat int `json:"repeat,omitempty"`
	// Sample is Config.Sample: every trace was sampled (TraceResult.Sample
	// gives each one's final rate).
	Sample *trace.Sampling `json:"sample,omitempty"`
	Traces []TraceResult   `json:"traces"`
	// Failed counts the cells whose replay failed (Row.Failed); cells of
	// adapters that cannot be configured at their size are not failures.
	Failed int `json:"failed,omitempty"`
	// Interrupted is true when the sweep was cancelled (Ctrl-C) after
	// some traces were replayed: Traces holds those, and
	// InterruptedDuring names the trace the cancellation cut short.
	Interrupted       bool   `json:"interrupted,omitempty"`
	InterruptedDuring string `json:"interrupted_during,omitempty"`
}

// Kind is the Result.Kind of hit-ratio results.
const Kind = report.KindHitRatio

// TraceResult holds the rows of one trace.
type TraceResult struct {
	Name   string `json:"name"`
	Format string `json:"format"`
	trace.Summary
	// Sized says whether the format records object sizes; without them
	// the byte hit ratio equals the object hit ratio.
	Sized bool `json:"sized"`
	// Infinite is the hit ratio of an unbounded cache: every request but
	// the first to each object hits.
	Infinite float64 `json:"infinite_hit_ratio"`
	// Capacities are the capacities of this trace's sweep, in order.
	Capacities []string `json:"capacities"`
	// Sample, when the trace was sampled, describes the sample; the
	// Summary above is then the sample's, and each row's Sample gives its
	// scaling and standard errors.
	Sample *TraceSample `json:"sample,omitempty"`
	// ReaderPerSec is the speed of the replay loop over a null cache: the
	// lab's loop, reading the normalized trace (its first
	// readerSpeedRequests requests: a rate, which a longer pass would
	// only repeat).
	ReaderPerSec float64 `json:"reader_requests_per_sec"`
	// NormalizePerSec is the speed of the one pass that reads the trace
	// as given (decompression and decoding included) and writes its
	// normalized copy, before any replay.
	NormalizePerSec float64 `json:"normalize_requests_per_sec"`
	Rows            []Row   `json:"rows"`
}

// ErrInput marks (wrapped) an error caused by a trace: unreadable, of an
// unknown format, malformed or empty.
var ErrInput = errors.New("bad trace")

// Run performs the sweep. Errors caused by a trace wrap ErrInput. When
// ctx is cancelled after one or more traces were replayed, Run returns
// them as a Result marked Interrupted together with the error.
func Run(ctx context.Context, c Config) (*Result, error) {
	if len(c.Traces) == 0 || (len(c.Capacities) == 0 && c.CapacitiesFor == nil) || len(c.Adapters) == 0 {
		return nil, errors.New("hitratio: need traces, capacities and adapters")
	}
	res := &Result{Schema: Schema, Kind: Kind, Started: time.Now().UTC(), Env: machine.Env(), Adapters: c.Adapters, Async: c.Async, Sample: c.Sample}
	if c.Repeat > 1 {
		res.Repeat = c.Repeat
	}
	for _, cp := range c.Capacities {
		if c.CapacitiesFor == nil {
			res.Capacities = append(res.Capacities, cp.String())
		}
	}
	for _, in := range c.Traces {
		tr, err := runTrace(ctx, c, in)
		if err != nil && ctx.Err() != nil && len(res.Traces) > 0 {
			// What the traces before took is kept: the caller writes it
			// as a partial result.
			res.Interrupted, res.InterruptedDuring = true, in.DisplayName()
			return res, fmt.Errorf("hit-ratio sweep cancelled during %s, after %d of %d traces: %w", in.DisplayName(), len(res.Traces), len(c.Traces), err)
		}
		if err != nil {
			return nil, err
		}
		for _, r := range tr.Rows {
			if r.Failed != "" {
				res.Failed++
			}
		}
		res.Traces = append(res.Traces, *tr)
	}
	return res, nil
}

func runTrace(ctx context.Context, c Config, in TraceInput) (*TraceResult, error) {
	t0 := time.Now()
	n, format, smp, err := normalize(ctx, in, c.Dir, c.Sample)
	if err != nil {
		return nil, err
	}
	defer n.Close()
	normalized := time.Since(t0)
	n = n.WithContext(ctx)
	full := fullOf(n.Summary, smp)
	tr := &TraceResult{Name: in.DisplayName(), Format: string(format), Summary: n.Summary,
		Sized:           format == genFormat || trace.Sized(format),
		Sample:          smp,
		Infinite:        max(1-float64(full.Distinct)/float64(full.Requests), 0),
		NormalizePerSec: float64(full.Requests) / max(normalized.Seconds(), 1e-9)}
	f, err := n.Open()
	if err != nil {
		return nil, err
	}
	_, tr.ReaderPerSec, err = ReaderSpeed(&prefix{r: f, left: readerSpeedRequests}, int(min(n.MaxSize, MaxValue)))
	f.Close()
	if err != nil {
		return nil, err
	}
	type job struct {
		i, rep  int // the cell, and which of its replays
		adapter string
		cap     int // index in caps
	}
	caps := c.Capacities
	if c.CapacitiesFor != nil {
		caps = c.CapacitiesFor(full)
	}
	budgets := make([]Budget, len(caps))
	cellSamples := make([]*CellSample, len(caps))
	for i, cp := range caps {
		tr.Capacities = append(tr.Capacities, cp.String())
		budgets[i], cellSamples[i] = scaled(cp, n.Summary, smp)
	}
	// A byte-bounded cache may allocate its whole budget when it is made
	// (freecache; fastcache panics above 1 TiB): a budget beyond the
	// memory there is would end the process, not fail a cell. A sampled
	// sweep replays the scaled budgets.
	needCaps := caps
	if smp != nil {
		needCaps = make([]Capacity, len(budgets))
		for i, b := range budgets {
			needCaps[i] = Capacity{Entries: b.Entries}
		}
	}
	if err := fit.Check(sweepNeed(tr.Name, n.Summary, c.Adapters, needCaps, c.Jobs)); err != nil {
		return nil, err // a *fit.TooBigError: bad usage
	}
	var jobs []job
	// runs[i] holds cell i's replays, errs[i] their errors.
	var runs [][]Row
	var errs [][]error
	for _, name := range append([]string{OPTName}, c.Adapters...) {
		reps := 1
		if _, ref := references[name]; !ref && name != OPTName {
			reps = max(c.Repeat, 1)
		}
		for ci := range caps {
			for rep := range reps {
				jobs = append(jobs, job{len(runs), rep, name, ci})
			}
			runs = append(runs, make([]Row, reps))
			errs = append(errs, make([]error, reps))
		}
	}
	next := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < max(c.Jobs, 1); w++ {
		wg.Go(func() {
			for j := range next {
				runs[j.i][j.rep], errs[j.i][j.rep] = replayOne(n, j.adapter, caps[j.cap], budgets[j.cap], cellSamples[j.cap], smp, c.Async)
				mu.Lock()
				done++
				if c.Progress != nil {
					c.Progress(done, len(jobs), fmt.Sprintf("%s %s capacity %s", tr.Name, j.adapter, caps[j.cap]))
				}
				mu.Unlock()
			}
		})
	}
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- j
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// A cell that fails is marked and the sweep goes on: an adapter that
	// cannot be configured at a size (a minimum memory above the budget)
	// is a fact about it, reported like a hit ratio; any other failure is
	// marked too, counted in Result.Failed, and makes the command exit 1
	// once everything is written.
	tr.Rows = make([]Row, len(runs))
	for i := range runs {
		var err error
		tr.Rows[i], err = medianRun(runs[i], errs[i])
		var nc *unconfigurable
		switch {
		case err == nil:
		case errors.As(err, &nc):
			tr.Rows[i].Unconfigurable = nc.why
		default:
			tr.Rows[i].Failed = err.Error()
		}
	}
	flagAboveOPT(tr.Rows, len(caps))
	return tr, nil
}

// medianRun combines the replays of one cell: the first error if any
// failed, else the replay with the median object hit ratio (the lower
// middle one of an even count), with every replay's object hit ratio in
// Runs when there were several.
func medianRun(rows []Row, errs []error) (Row, error) {
	for i, err := range errs {
		if err != nil {
			return rows[i], err
		}
	}
	if len(rows) == 1 {
		return rows[0], nil
	}
	sorted := slices.Clone(rows)
	slices.SortStableFunc(sorted, func(a, b Row) int { return cmp.Compare(a.HitRatio, b.HitRatio) })
	row := sorted[(len(sorted)-1)/2]
	row.Runs = make([]float64, len(rows))
	for i, r := range rows {
		row.Runs[i] = r.HitRatio
	}
	return row, nil
}

// flagAboveOPT flags rows whose object hit ratio beats OPT at the same
// capacity. OPT is the best any cache holding at most the entry budget
// can do, so such a cache held more entries than its budget at some
// point: an unbounded map, or a cache with a memory floor above its budget.
// This also catches adapters that cannot count their entries. rows holds
// OPT's rows first, then each adapter's, ncap per adapter.
func flagAboveOPT(rows []Row, ncap int) {
	for i := ncap; i < len(rows); i++ {
		opt := rows[i%ncap]
		if rows[i].Ran() && rows[i].HitRatio > opt.HitRatio+1e-9 {
			rows[i].Flags = append(rows[i].Flags, Flag{FlagAboveOPT, fmt.Sprintf("%.4f > OPT's %.4f, so it held more than %d entries", rows[i].HitRatio, opt.HitRatio, opt.Entries)})
		}
	}
}

// replayOne replays one cell: capacity cp, which gives budget b, and,
// when the trace is sampled (smp and cs set), counts each object's misses
// for the cell's estimates for the whole trace and their standard errors.
func replayOne(n *trace.Normalized, name string, cp Capacity, b Budget, cs *CellSample, smp *TraceSample, async bool) (Row, error) {
	var t tally
	if cs != nil {
		t = newTally(n.Distinct)
	}
	var row Row
	var err error
	if name == OPTName {
		row, err = replayOPT(n, b, t)
	} else if newPolicy, ok := references[name]; ok {
		row, err = replayPolicy(n, name, newPolicy(b.Entries, n.Distinct), b, t)
	} else {
		row, err = replayAdapter(n, name, b, async, t)
	}
	row.Capacity = cp.String()
	if cs != nil && err == nil {
		s := *cs
		t.estimate(&row, &s, smp)
		row.Sample = &s
	}
	return row, err
}

// fullOf is the summary of the whole trace: s itself, or estimated from
// the sample's.
func fullOf(s trace.Summary, smp *TraceSample) trace.Summary {
	if smp == nil {
		return s
	}
	return fullSummary(s, smp.Sampled)
}

// genFormat is the TraceResult.Format of a synthetic trace streamed as it
// is drawn (TraceInput.Gen).
const genFormat = "gen"

// normalize opens and rewrites one trace, sampled by smp when set; every
// failure is the input's.
func normalize(ctx context.Context, in TraceInput, dir string, smp *trace.Sampling) (*trace.Normalized, trace.Format, *TraceSample, error) {
	n, format, sampled, err := normalizeSampled(ctx, in, dir, smp)
	if err != nil || smp == nil {
		return n, format, nil, err
	}
	ts := &TraceSample{Sampled: sampled, Method: ErrorMethod,
		Objects: int64(math.Round(float64(n.Distinct) / sampled.FinalRate))}
	return n, format, ts, nil
}

func normalizeSampled(ctx context.Context, in TraceInput, dir string, smp *trace.Sampling) (*trace.Normalized, trace.Format, trace.Sampled, error) {
	var none trace.Sampled
	format := in.Format
	if in.Gen != nil {
		format = genFormat
	} else if format == "" {
		var err error
		if format, err = trace.FormatOf(in.Path); err != nil {
			return nil, "", none, fmt.Errorf("%w: %w", ErrInput, err)
		}
		in.Format = format
	}
	f, err := in.Open(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", none, err
		}
		return nil, "", none, fmt.Errorf("%w: %w", ErrInput, err)
	}
	defer f.Close()
	src := trace.Cancellable(ctx, f)
	var n *trace.Normalized
	var sampled trace.Sampled
	if smp != nil {
		n, sampled, err = trace.NormalizeSampled(src, dir, in.DisplayName(), *smp)
	} else {
		n, err = trace.Normalize(src, dir, in.Path)
	}
	if err != nil {
		var re *trace.RecordError
		if errors.As(err, &re) || errors.Is(err, trace.ErrEmpty) {
			return nil, "", none, fmt.Errorf("%w: %w", ErrInput, err)
		}
		return nil, "", none, err
	}
	return n, format, sampled, nil
}

// Load reads a result written with Write's json format.
func Load(ctx context.Context, path string) (*Result, error) {
	// Through fileio.ReadInput, as every result file is read: os.ReadFile
	// read /dev/zero until memory ran out and waited on a FIFO without a
	// writer past Ctrl-C.
	b, err := fileio.ReadInput(ctx, path, report.MaxResultFile)
	if err != nil {
		return nil, fmt.Errorf("load hit-ratio result: %w", err)
	}
	var r Result
	if err := report.DecodeOne(b, path, &r); err != nil {
		return nil, err
	}
	if r.Kind != Kind || r.Schema != Schema {
		return nil, fmt.Errorf("%s: not a hit-ratio result of schema %d (kind %q, schema %d)", path, Schema, r.Kind, r.Schema)
	}
	if err := report.Locate(r.Check(), b, path); err != nil {
		return nil, err
	}
	return &r, nil
}

// cellMemory estimates the memory one replay of adapter name at capacity
// cp holds at its peak. A byte-budget adapter (engine.Factory.ByteBudget)
// may allocate its whole budget when it is made (freecache; fastcache
// panics above 1 TiB), so it counts in full; an entry-bounded cache holds
// at most the trace's distinct objects, each BytesPerEntry (values are cut
// to MaxValue); OPT and the reference policies keep a few slices over
// their entries and the objects.
func cellMemory(name string, cp Capacity, s trace.Summary) int64 {
	b := cp.Resolve(s)
	held := int64(min(b.Entries, max(s.Distinct, 1)))
	if _, ref := references[name]; ref || name == OPTName {
		return fit.Add(fit.Mul(held, 16), fit.Mul(int64(s.Distinct), 24))
	}
	fac, err := engine.Lookup(name)
	if err != nil {
		return 0 // replayOne fails the cell
	}
	var fixed int64
	if fac.Fixed != nil {
		fixed = fac.Fixed(engine.Options{Entries: b.Entries, MemoryBytes: b.Bytes, MaxValueSize: int(min(s.MaxSize, MaxValue))})
	}
	if fac.ByteBudget {
		return fit.Add(b.Bytes, fixed)
	}
	return fit.Add(int64(math.Ceil(float64(held)*BytesPerEntry(s))), fixed)
}

// sweepNeed is the memory of a trace's sweep: the jobs largest of its
// replays, which may all run at once. A budget beyond the memory there is
// would end the process (or the machine's other work), not fail a cell.
func sweepNeed(traceName string, s trace.Summary, adapters []string, caps []Capacity, jobs int) fit.Need {
	type cell struct {
		mem           int64
		adapter, capa string
	}
	var cells []cell
	for _, name := range append([]string{OPTName}, adapters...) {
		for _, cp := range caps {
			cells = append(cells, cell{cellMemory(name, cp, s), name, cp.String()})
		}
	}
	slices.SortStableFunc(cells, func(a, b cell) int { return cmp.Compare(b.mem, a.mem) })
	jobs = min(max(jobs, 1), len(cells))
	var total int64
	for _, c := range cells[:jobs] {
		total = fit.Add(total, c.mem)
	}
	top := cells[0]
	return fit.Need{What: fmt.Sprintf("--capacity %s on %s", top.capa, traceName), Memory: total,
		MemoryDetail: fmt.Sprintf("the %d largest of the sweep's %d replays, run at once by --jobs %d; %s alone takes %s, a byte-budget cache its whole budget of entries × %.0f B",
			jobs, len(cells), jobs, top.adapter, fit.FormatBytes(top.mem), BytesPerEntry(s))}
}
