package runner

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/machine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
)

type opKind int

const (
	opInsert opKind = iota
	opLookup
	opMixed
	opGetOrSet
	// read-vector (engine.Float64sStore): its insert, and its read and sum.
	opSetVector
	opReadVector
)

// batchSize is the number of keys per GetBatch call.
const batchSize = 64

// maxLatency bounds the latency histograms (60 s); slower operations are
// clamped to it rather than lost.
const maxLatency = int64(60 * time.Second)

// driver runs passes of one workload against one adapter instance.
type driver struct {
	a     engine.Adapter
	w     *workloads.Workload
	procs int
	every int
	// unsupported collects phases this platform cannot run;
	// coldUnsupported is set when it holds the cold pass.
	unsupported     []string
	coldUnsupported bool
	// limit bounds the wall time of a get-or-set or mixed pass (0: none);
	// the workers' deadline is set from it when a pass starts.
	limit time.Duration
	// conns is the number of goroutines per proc, each with one request
	// in flight: --conns-per-worker for network adapters, else 1.
	conns int
	// halt is set when the run is cancelled; the loops look at it on
	// every sampled operation, so a pass stops within microseconds (its
	// sample is then discarded with the interrupted adapter run).
	halt *atomic.Bool
	// rate, if positive, runs the timed pass (driver.timed) open-loop at
	// this many operations per second across the workers (openloop.go),
	// with arrivals report.ArrivalsUniform or ArrivalsPoisson and a time
	// series of interval.
	rate     float64
	arrivals string
	interval time.Duration
	// spin is Config.WaitSpin.
	spin time.Duration
	// forceGC is Config.ForceGC; forced counts the collections it forced
	// in the last open-loop pass.
	forceGC time.Duration
	forced  int64
	// during, if set, is started by measure as the clock starts, and the
	// function it returns is called as soon as the workers are done.
	during func() func()
}

// workers is the number of goroutines of a pass.
func (d *driver) workers() int { return d.procs * max(1, d.conns) }

// worker holds one goroutine's counters. The padding keeps two workers'
// counters off the same cache line, so that counting does not itself
// become a scaling bottleneck.
type worker struct {
	tally
	// ops is the number of operations the worker ran: its part, or fewer
	// when the pass hit its time limit.
	ops int64
	// deadline is the machine.Mono time at which the pass's time limit
	// runs out (zero: none), set before the workers start.
	deadline time.Duration
	halt     *atomic.Bool
	hist     *hdrhistogram.Histogram
	buf      []byte
	// vec is the scratch space of a read-vector read (GetFloat64s's dst).
	vec []float64
	// index is the worker's number in its pass, and open its open-loop
	// state (nil in a closed-loop pass).
	index int
	open  *openState
	_     [64]byte
}

// past reports whether a pass with a time limit has run past it at t, the
// start of operation i of the worker's part, and then records that the
// worker ran i operations. The loops call it only on operations whose
// latency is sampled, so it costs no extra clock read.
func (wk *worker) past(t time.Duration, i int) bool {
	if (wk.deadline == 0 || t <= wk.deadline) && !wk.halted() {
		return false
	}
	wk.ops = int64(i)
	return true
}

// halted reports whether the run was cancelled.
func (wk *worker) halted() bool { return wk.halt != nil && wk.halt.Load() }

func (wk *worker) record(d time.Duration) {
	v := int64(d)
	if v > maxLatency {
		v = maxLatency
	}
	if v < 1 {
		v = 1
	}
	_ = wk.hist.RecordValue(v) // in range by construction
}

// insert sets every key of st to its value (opInsert) or its vector
// (opSetVector). For a write-once store the build runs
// on one goroutine (builders are sequential) and Freeze — finishing the
// file, fsync included — is inside the timed region; for an asynchronous
// cache the drain of its write buffers is. The returned note says so.
func (d *driver) insert(st *workloads.Stream, op opKind) (report.Sample, string, error) {
	workers := d.workers()
	fr, isFreezer := d.a.(engine.Freezer)
	dr, isDrainer := d.a.(engine.Drainer)
	var note string
	var after func() error
	set := "Set"
	if op == opSetVector {
		set = "SetFloat64s"
	}
	switch {
	case isFreezer:
		workers = 1
		note = "build: " + set + " of every key plus Freeze (file finished and fsynced), one goroutine"
		after = fr.Freeze
	case isDrainer:
		note = "includes draining the asynchronous write buffers"
		after = func() error { dr.Drain(); return nil }
	}
	s, err := d.run(st, op, workers, after)
	if err != nil {
		return s, note, err
	}
	if s.Errors > 0 {
		return s, note, fmt.Errorf("insert: %d of %d sets failed", s.Errors, s.Ops)
	}
	return s, note, nil
}

// pass runs st once with one worker per proc and returns its sample, and
// an error if operations failed (see failures).
func (d *driver) pass(st *workloads.Stream, op opKind) (report.Sample, error) {
	return d.run(st, op, d.workers(), nil)
}

// warm runs the first frac of st untimed, so that the timed pass does not
// measure first-touch page faults and cold CPU caches.
func (d *driver) warm(st *workloads.Stream, frac float64, op opKind) {
	n := int(float64(st.Len()) * frac)
	if n > 0 {
		d.run(st.Slice(0, n), op, d.workers(), nil)
	}
}

// run times one pass of op over st on workers goroutines; after, if set,
// runs inside the timed region once the workers are done.
func (d *driver) run(st *workloads.Stream, op opKind, workers int, after func() error) (report.Sample, error) {
	return d.measure(st, workers, func(wk *worker, part *workloads.Stream) func() {
		return func() { d.work(wk, part, op) }
	}, after)
}

// measure is the one timed path of every pass. It splits st into
// contiguous parts, one per worker (each part's keys are contiguous in
// the stream, in the order the worker uses them); prepare runs on each
// worker's goroutine before the clock starts and returns the loop to
// time. The workers start together on a closed channel after a GC, the
// whole pass is timed with one clock read at each end, and after, if set,
// runs inside the timed region once the workers are done. Allocation
// figures come from runtime.MemStats deltas taken outside the timed
// region.
func (d *driver) measure(st *workloads.Stream, workers int, prepare func(wk *worker, part *workloads.Stream) func(), after func() error) (report.Sample, error) {
	if workers > st.Len() {
		workers = max(1, st.Len())
	}
	wks := make([]worker, workers)
	for i := range wks {
		wks[i].hist = hdrhistogram.New(1, maxLatency, 3)
		wks[i].index = i
		wks[i].halt = d.halt
		wks[i].buf = make([]byte, 0, d.w.MaxValueSize())
		if d.w.Spec.Scenario == workloads.ReadVector {
			wks[i].vec = make([]float64, 0, workloads.VectorLen)
		}
	}
	var wg, ready sync.WaitGroup
	start := make(chan struct{})
	for i, part := range st.Split(workers) {
		wks[i].ops = int64(part.Len())
		wg.Add(1)
		ready.Add(1)
		go func(wk *worker, part *workloads.Stream) {
			defer wg.Done()
			loop := prepare(wk, part)
			ready.Done()
			<-start
			loop()
		}(&wks[i], part)
	}
	// Every worker prepared (an open loop's schedule made) before the
	// clock starts.
	ready.Wait()
	runtime.GC()
	var before, afterMS runtime.MemStats
	runtime.ReadMemStats(&before)

	t0 := time.Now()
	var deadline time.Duration
	if d.limit > 0 {
		deadline = machine.Mono() + d.limit
	}
	base := machine.Mono()
	for i := range wks {
		wks[i].deadline = deadline // read by the workers after start closes
		if wks[i].open != nil {
			wks[i].open.base = base
		}
	}
	var stop func()
	if d.during != nil {
		stop = d.during()
	}
	close(start)
	wg.Wait()
	if stop != nil {
		stop()
	}
	var afterErr error
	if after != nil {
		afterErr = after()
	}
	elapsed := time.Since(t0)

	runtime.ReadMemStats(&afterMS)
	var ops int64
	for i := range wks {
		ops += wks[i].ops
	}
	s := d.sample(wks, ops, elapsed)
	if wks[0].open != nil {
		d.openSample(&s, wks, elapsed)
		s.Open.GCCycles = int64(afterMS.NumGC - before.NumGC)
	}
	s.AllocsPerOp = float64(afterMS.Mallocs-before.Mallocs) / float64(s.Ops)
	s.BytesPerOp = float64(afterMS.TotalAlloc-before.TotalAlloc) / float64(s.Ops)
	if afterErr == nil {
		afterErr = failures(wks, s.Ops)
	}
	return s, afterErr
}

// failures is the error of a pass whose operations failed for another
// reason than an entry too large (tally.failures), or nil. A pass with
// any such failure is not a measurement of the cache: its hit ratio
// would count only the operations that answered.
func failures(wks []worker, ops int64) error {
	var n int64
	var first error
	for i := range wks {
		n += wks[i].failures
		if first == nil {
			first = wks[i].firstFailure
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d operations failed; the first: %w", n, ops, first)
}

// work runs one worker's part of a pass through the loop of its kind
// (loops.go).
func (d *driver) work(wk *worker, part *workloads.Stream, op opKind) {
	c := &checker{hot: d.w.HasHot()}
	switch op {
	case opInsert:
		setLoop(d.a, part, d.every, wk, &wk.tally)
	case opLookup:
		wk.buf = getLoop(d.a, part, c, wk.buf, d.every, wk, &wk.tally)
	case opMixed:
		wk.buf = mixedLoop(d.a, part, c, wk.buf, d.every, wk, &wk.tally)
	case opGetOrSet:
		wk.buf = getOrSetLoop(d.a, part, c, wk.buf, d.every, wk, &wk.tally)
	case opSetVector:
		setVectorLoop(d.a.(engine.Float64sStore), part, d.w.Vectors(), d.every, wk, &wk.tally)
	case opReadVector:
		readVectorLoop(d.a.(engine.Float64sStore), part, wk.vec, d.every, wk, &wk.tally)
	}
}

// batchPass looks st up through GetBatch, batchSize keys per call. Like
// getLoop it reads the stream front to back, checks each value against
// its operation's tag from the value's ends only, and counts as getLoop
// does: a checked hit only adds to the count of answered keys, the other
// outcomes go through tally.other, and the hits are what is left when
// the pass ends. GetBatch reports no per-key error: a failed call counts
// one error, and its keys count only as far as it answered them.
func (d *driver) batchPass(bg engine.BatchGetter, st *workloads.Stream) (report.Sample, error) {
	c := &checker{hot: d.w.HasHot()}
	return d.measure(st, d.workers(), func(wk *worker, part *workloads.Stream) func() {
		var batch [batchSize][]byte
		var ops []workloads.Op // the operations of the batch in flight
		t := &wk.tally
		var answered int64
		fn := func(j int, val []byte, found bool) {
			answered++
			if c.hot || !found || !workloads.CheckTag(val, ops[j].Tag) {
				t.other(c, nil, &ops[j], val, found, nil)
			}
		}
		return func() {
			others := t.others
			all, keys, mask := part.Ops, part.Keys, d.every-1
			start := part.Start
			for n := 0; n < len(all); n += batchSize {
				ops = all[n:min(n+batchSize, len(all))]
				for j := range ops {
					end := ops[j].KeyEnd
					batch[j] = keys[start:end:end]
					start = end
				}
				ks := batch[:len(ops)]
				if (n/batchSize)&mask == 0 && wk.halted() {
					break
				}
				if (n/batchSize)&mask != 0 {
					if err := bg.GetBatch(ks, fn); err != nil {
						t.fail(fmt.Errorf("get batch: %w", err))
					}
					continue
				}
				t0 := machine.Mono()
				err := bg.GetBatch(ks, fn)
				// Per-key latency inside a batch is the batch's time
				// shared out; the note of the phase says so.
				wk.record((machine.Mono() - t0) / time.Duration(len(ks)))
				if err != nil {
					t.fail(fmt.Errorf("get batch: %w", err))
				}
			}
			t.hits += answered - (t.others - others)
		}
	}, nil)
}

// sample merges the workers' counters and histograms.
func (d *driver) sample(wks []worker, ops int64, elapsed time.Duration) report.Sample {
	s := report.Sample{Ops: ops, HitRatio: -1, HotHitRatio: -1, ColdHitRatio: -1}
	if ops > 0 && elapsed > 0 {
		s.NsPerOp = float64(elapsed.Nanoseconds()) / float64(ops)
		s.OpsPerSec = float64(ops) / elapsed.Seconds()
	}
	merged := hdrhistogram.New(1, maxLatency, 3)
	var hotH, hotM, coldH, coldM int64
	for i := range wks {
		wk := &wks[i]
		s.Hits += wk.hits
		s.Misses += wk.misses
		s.Wrong += wk.wrong
		s.Errors += wk.errs
		hotH, hotM = hotH+wk.hotHits, hotM+wk.hotMisses
		coldH, coldM = coldH+wk.coldHits, coldM+wk.coldMisses
		merged.Merge(wk.hist)
	}
	s.HitRatio = ratio(s.Hits, s.Misses)
	if d.w.HasHot() {
		s.HotHitRatio = ratio(hotH, hotM)
		s.ColdHitRatio = ratio(coldH, coldM)
	}
	s.Latency = report.HistLatency(merged)
	return s
}

func ratio(hits, misses int64) float64 {
	if hits+misses == 0 {
		return -1
	}
	return float64(hits) / float64(hits+misses)
}
