// Package hitratio replays request traces through cache adapters at a
// sweep of capacities and reports object and byte hit ratios, next to
// Belady's optimal policy (OPT) computed from the trace's next-request
// times: the ceiling no cache of the same entry count can beat.
//
// Every trace is first rewritten once into a dense, annotated
// oracleGeneral file (trace.Normalize), which each adapter and OPT then
// stream; nothing holds the trace in memory. Each (adapter, capacity)
// replay runs on one goroutine with a fresh adapter, as get-or-set: Get,
// and Set the object on a miss.
package hitratio

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

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
	Repeat int           `json:"repeat,omitempty"`
	Traces []TraceResult `json:"traces"`
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
	// ReaderPerSec is the speed of the replay loop over a null cache: the
	// lab's loop, reading the normalized trace.
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
	res := &Result{Schema: Schema, Kind: Kind, Started: time.Now().UTC(), Env: machine.Env(), Adapters: c.Adapters, Async: c.Async}
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
	n, format, err := normalize(ctx, in, c.Dir)
	if err != nil {
		return nil, err
	}
	defer n.Close()
	normalized := time.Since(t0)
	n = n.WithContext(ctx)
	tr := &TraceResult{Name: in.DisplayName(), Format: string(format), Summary: n.Summary,
		Sized:           trace.Sized(format),
		Infinite:        1 - float64(n.Distinct)/float64(n.Requests),
		NormalizePerSec: float64(n.Requests) / max(normalized.Seconds(), 1e-9)}
	f, err := n.Open()
	if err != nil {
		return nil, err
	}
	_, tr.ReaderPerSec, err = ReaderSpeed(f, int(min(n.MaxSize, MaxValue)))
	f.Close()
	if err != nil {
		return nil, err
	}
	type job struct {
		i, rep  int // the cell, and which of its replays
		adapter string
		cap     Capacity
	}
	caps := c.Capacities
	if c.CapacitiesFor != nil {
		caps = c.CapacitiesFor(n.Summary)
	}
	for _, cp := range caps {
		tr.Capacities = append(tr.Capacities, cp.String())
		// A byte-bounded cache may allocate its whole budget when it is
		// made (freecache; fastcache panics above 1 TiB): a budget beyond
		// the memory there is would end the process, not fail a cell.
		b := cp.Resolve(n.Summary)
		need := fit.Need{What: fmt.Sprintf("--capacity %s on %s", cp, tr.Name), Memory: b.Bytes,
			MemoryDetail: fmt.Sprintf("the byte-bounded caches' budget: %d entries × %.0f B", b.Entries, BytesPerEntry(n.Summary))}
		if err := fit.Check(need); err != nil {
			return nil, err // a *fit.TooBigError: bad usage
		}
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
		for _, cp := range caps {
			for rep := range reps {
				jobs = append(jobs, job{len(runs), rep, name, cp})
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
				runs[j.i][j.rep], errs[j.i][j.rep] = replayOne(n, j.adapter, j.cap, c.Async)
				mu.Lock()
				done++
				if c.Progress != nil {
					c.Progress(done, len(jobs), fmt.Sprintf("%s %s capacity %s", tr.Name, j.adapter, j.cap))
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

func replayOne(n *trace.Normalized, name string, cp Capacity, async bool) (Row, error) {
	b := cp.Resolve(n.Summary)
	var row Row
	var err error
	if name == OPTName {
		row, err = replayOPT(n, b)
	} else if newPolicy, ok := references[name]; ok {
		row, err = replayPolicy(n, name, newPolicy(b.Entries, n.Distinct), b)
	} else {
		row, err = replayAdapter(n, name, b, async)
	}
	row.Capacity = cp.String()
	return row, err
}

// normalize opens and rewrites one trace; every failure is the input's.
func normalize(ctx context.Context, in TraceInput, dir string) (*trace.Normalized, trace.Format, error) {
	format := in.Format
	if format == "" {
		var err error
		if format, err = trace.FormatOf(in.Path); err != nil {
			return nil, "", fmt.Errorf("%w: %w", ErrInput, err)
		}
	}
	in.Format = format
	f, err := in.Open(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("%w: %w", ErrInput, err)
	}
	defer f.Close()
	n, err := trace.Normalize(trace.Cancellable(ctx, f), dir, in.Path)
	if err != nil {
		var re *trace.RecordError
		if errors.As(err, &re) || errors.Is(err, trace.ErrEmpty) {
			return nil, "", fmt.Errorf("%w: %w", ErrInput, err)
		}
		return nil, "", err
	}
	return n, format, nil
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
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.Kind != Kind || r.Schema != Schema {
		return nil, fmt.Errorf("%s: not a hit-ratio result of schema %d (kind %q, schema %d)", path, Schema, r.Kind, r.Schema)
	}
	return &r, nil
}
