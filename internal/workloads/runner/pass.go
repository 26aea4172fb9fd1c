package runner

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
)

type opKind int

const (
	opInsert opKind = iota
	opLookup
	opMixed
	opGetOrSet
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
	// unsupported collects phases this platform cannot run.
	unsupported []string
	// limit bounds the wall time of a get-or-set or mixed pass (0: none);
	// deadline is set from it when a pass starts.
	limit    time.Duration
	deadline time.Time
	// conns is the number of goroutines per proc, each with one request
	// in flight: --conns-per-worker for network adapters, else 1.
	conns int
}

// workers is the number of goroutines of a pass.
func (d *driver) workers() int { return d.procs * max(1, d.conns) }

// worker holds one goroutine's counters. The padding keeps two workers'
// counters off the same cache line, so that counting does not itself
// become a scaling bottleneck.
type worker struct {
	hits, misses         int64
	hotHits, hotMisses   int64
	coldHits, coldMisses int64
	wrong, errs          int64
	// ops is the number of operations the worker ran: its chunk, or fewer
	// when the pass hit its time limit.
	ops      int64
	firstErr error
	hist     *hdrhistogram.Histogram
	buf      []byte
	_        [64]byte
}

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

func (wk *worker) fail(err error) {
	wk.errs++
	if wk.firstErr == nil {
		wk.firstErr = err
	}
}

// insert sets every key of order. For a write-once store the build runs
// on one goroutine (builders are sequential) and Freeze — finishing the
// file, fsync included — is inside the timed region; for an asynchronous
// cache the drain of its write buffers is. The returned note says so.
func (d *driver) insert(order []uint32) (report.Sample, string, error) {
	workers := d.workers()
	fr, isFreezer := d.a.(engine.Freezer)
	dr, isDrainer := d.a.(engine.Drainer)
	var note string
	var after func() error
	switch {
	case isFreezer:
		workers = 1
		note = "build: Set of every key plus Freeze (file finished and fsynced), one goroutine"
		after = fr.Freeze
	case isDrainer:
		note = "includes draining the asynchronous write buffers"
		after = func() error { dr.Drain(); return nil }
	}
	s, err := d.run(order, opInsert, workers, after)
	if err != nil {
		return s, note, err
	}
	if s.Errors > 0 {
		return s, note, fmt.Errorf("insert: %d of %d sets failed", s.Errors, s.Ops)
	}
	return s, note, nil
}

// pass runs seq once with one worker per proc and returns its sample.
func (d *driver) pass(seq []uint32, op opKind) report.Sample {
	s, _ := d.run(seq, op, d.workers(), nil)
	return s
}

// warm runs the first frac of seq untimed, so that the timed pass does not
// measure first-touch page faults and cold CPU caches.
func (d *driver) warm(seq []uint32, frac float64, op opKind) {
	n := int(float64(len(seq)) * frac)
	if n > 0 {
		d.run(seq[:n], op, d.workers(), nil)
	}
}

// run times one pass of op over seq on workers goroutines; after, if set,
// runs inside the timed region once the workers are done.
func (d *driver) run(seq []uint32, op opKind, workers int, after func() error) (report.Sample, error) {
	return d.measure(seq, workers, func(wk *worker, chunk []uint32) func() {
		return func() { d.work(wk, chunk, op) }
	}, after)
}

// measure is the one timed path of every pass. It splits seq into
// contiguous chunks, one per worker; prepare runs on each worker's
// goroutine before the clock starts and returns the loop to time. The
// workers start together on a closed channel after a GC, the whole pass
// is timed with one clock read at each end, and after, if set, runs inside
// the timed region once the workers are done. Allocation figures come from
// runtime.MemStats deltas taken outside the timed region.
func (d *driver) measure(seq []uint32, workers int, prepare func(wk *worker, chunk []uint32) func(), after func() error) (report.Sample, error) {
	if workers > len(seq) {
		workers = max(1, len(seq))
	}
	wks := make([]worker, workers)
	for i := range wks {
		wks[i].hist = hdrhistogram.New(1, maxLatency, 3)
		wks[i].buf = make([]byte, 0, d.w.MaxValueSize())
		wks[i].ops = int64(len(seq)*(i+1)/workers - len(seq)*i/workers)
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range wks {
		lo, hi := len(seq)*i/workers, len(seq)*(i+1)/workers
		wg.Add(1)
		go func(wk *worker, chunk []uint32) {
			defer wg.Done()
			loop := prepare(wk, chunk)
			<-start
			loop()
		}(&wks[i], seq[lo:hi])
	}
	runtime.GC()
	var before, afterMS runtime.MemStats
	runtime.ReadMemStats(&before)

	t0 := time.Now()
	d.deadline = time.Time{}
	if d.limit > 0 {
		d.deadline = t0.Add(d.limit)
	}
	close(start)
	wg.Wait()
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
	s.AllocsPerOp = float64(afterMS.Mallocs-before.Mallocs) / float64(s.Ops)
	s.BytesPerOp = float64(afterMS.TotalAlloc-before.TotalAlloc) / float64(s.Ops)
	return s, afterErr
}

// work is the hot loop. Each operation kind has its own loop so that the
// loop body holds nothing but the adapter call and the check of its
// result; latency is sampled on one operation in d.every.
func (d *driver) work(wk *worker, chunk []uint32, op opKind) {
	keys, vals := d.w.Keys, d.w.Values
	a := d.a
	mask := d.every - 1
	buf := wk.buf
	var ok bool
	var err error
	switch op {
	case opInsert:
		for i, k := range chunk {
			if i&mask == 0 {
				t := time.Now()
				err = a.Set(keys[k], vals[k])
				wk.record(time.Since(t))
			} else {
				err = a.Set(keys[k], vals[k])
			}
			if err != nil {
				wk.fail(fmt.Errorf("set %q: %w", keys[k], err))
			}
		}
	case opLookup:
		for i, k := range chunk {
			if i&mask == 0 {
				t := time.Now()
				buf, ok, err = a.Get(buf[:0], keys[k])
				wk.record(time.Since(t))
			} else {
				buf, ok, err = a.Get(buf[:0], keys[k])
			}
			d.check(wk, k, buf, ok, err)
		}
	case opMixed:
		for i, o := range chunk {
			k := o &^ workloads.WriteBit
			timed := i&mask == 0
			var t time.Time
			if timed {
				t = time.Now()
				if d.pastDeadline(wk, t, i) {
					break
				}
			}
			if o&workloads.WriteBit != 0 {
				if err = a.Set(keys[k], vals[k]); err != nil {
					wk.fail(fmt.Errorf("set %q: %w", keys[k], err))
				}
				if timed {
					wk.record(time.Since(t))
				}
				continue
			}
			buf, ok, err = a.Get(buf[:0], keys[k])
			if timed {
				wk.record(time.Since(t))
			}
			d.check(wk, k, buf, ok, err)
		}
	case opGetOrSet:
		for i, k := range chunk {
			timed := i&mask == 0
			var t time.Time
			if timed {
				t = time.Now()
				if d.pastDeadline(wk, t, i) {
					break
				}
			}
			buf, ok, err = a.Get(buf[:0], keys[k])
			if err == nil && !ok {
				if serr := a.Set(keys[k], vals[k]); serr != nil {
					wk.fail(fmt.Errorf("set %q: %w", keys[k], serr))
				}
			}
			if timed {
				wk.record(time.Since(t))
			}
			d.check(wk, k, buf, ok, err)
		}
	}
	wk.buf = buf
}

// pastDeadline reports whether a pass with a time limit has run past it
// at t, the start of operation i of the worker's chunk, and then records
// that the worker ran i operations. It is called only on operations whose
// latency is sampled, so it costs no extra clock read.
func (d *driver) pastDeadline(wk *worker, t time.Time, i int) bool {
	if d.deadline.IsZero() || !t.After(d.deadline) {
		return false
	}
	wk.ops = int64(i)
	return true
}

// check counts one lookup's outcome and compares the value read with the
// value written.
func (d *driver) check(wk *worker, k uint32, val []byte, ok bool, err error) {
	if err != nil {
		wk.fail(fmt.Errorf("get %q: %w", d.w.Keys[k], err))
		return
	}
	hot := d.w.IsHot(k)
	if ok {
		wk.hits++
		if hot {
			wk.hotHits++
		} else {
			wk.coldHits++
		}
		if !bytes.Equal(val, d.w.Values[k]) {
			wk.wrong++
		}
		return
	}
	wk.misses++
	if hot {
		wk.hotMisses++
	} else {
		wk.coldMisses++
	}
}

// batchPass looks seq up through GetBatch, batchSize keys per call.
func (d *driver) batchPass(bg engine.BatchGetter, seq []uint32) report.Sample {
	s, _ := d.measure(seq, d.workers(), func(wk *worker, chunk []uint32) func() {
		batch := make([][]byte, 0, batchSize)
		var idx []uint32
		fn := func(j int, val []byte, found bool) { d.check(wk, idx[j], val, found, nil) }
		return func() {
			for n := 0; n < len(chunk); n += batchSize {
				idx = chunk[n:min(n+batchSize, len(chunk))]
				batch = batch[:0]
				for _, k := range idx {
					batch = append(batch, d.w.Keys[k])
				}
				timed := (n/batchSize)&(d.every-1) == 0
				var t time.Time
				if timed {
					t = time.Now()
				}
				if err := bg.GetBatch(batch, fn); err != nil {
					wk.fail(fmt.Errorf("get batch: %w", err))
				}
				if timed {
					// Per-key latency inside a batch is the batch's time
					// shared out; the note of the phase says so.
					wk.record(time.Since(t) / time.Duration(len(idx)))
				}
			}
		}
	}, nil)
	return s
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
	s.Latency = report.Latency{
		Samples: merged.TotalCount(),
		P50:     float64(merged.ValueAtQuantile(50)),
		P99:     float64(merged.ValueAtQuantile(99)),
		P999:    float64(merged.ValueAtQuantile(99.9)),
		Max:     float64(merged.Max()),
	}
	return s
}

func ratio(hits, misses int64) float64 {
	if hits+misses == 0 {
		return -1
	}
	return float64(hits) / float64(hits+misses)
}
