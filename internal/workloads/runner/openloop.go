package runner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/machine"
	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
)

// The open loop (Config.Rates, run --rate). Before a pass, every worker
// gets a schedule: the intended start of each of its operations, at
// rate/workers operations per second, the workers staggered so that the
// pass as a whole offers the rate asked for. A worker waits for each
// intended start (sleeping, then spinning for the last stretch), or, when
// it is behind, sends the operation at once: it never skips one, and how
// far behind it fell is recorded (backlog and lag). Every operation is
// timed twice from one clock read at its end: from its intended start
// (corrected: what a caller arriving on schedule waits) and from its
// actual start (uncorrected: what a closed loop would report). The
// closed-loop loops (loops.go) are not touched: an open-loop pass runs
// these loops instead.

// DefaultInterval is the length of one interval of an open-loop pass's
// time series.
const DefaultInterval = time.Second

// AutoFractions are the offered rates of an automatic sweep (Config.
// AutoRate), as fractions of each adapter's closed-loop throughput in the
// same workload and GOMAXPROCS.
var AutoFractions = []float64{0.1, 0.25, 0.5, 0.75, 1}

// spinBelow is how close to an intended start a waiting worker stops
// sleeping and spins (yielding to other goroutines): a sleep overshoots,
// and the overshoot would count as the harness's own lateness. It is the
// machine's sleep overshoot (sleepOvershoot) plus a margin.
func spinBelow() time.Duration {
	spinOnce.Do(func() { spinFrom = min(max(2*sleepOvershoot(), 50*time.Microsecond), 5*time.Millisecond) })
	return spinFrom
}

var (
	spinOnce sync.Once
	spinFrom time.Duration
)

// sleepOvershoot measures how late a short sleep returns here: the
// second-largest overshoot of a few 100 µs sleeps (from tens of
// microseconds on an idle machine to a millisecond or more on a busy
// virtual one).
func sleepOvershoot() time.Duration {
	const n = 12
	over := make([]time.Duration, n)
	for i := range over {
		t0 := machine.Mono()
		time.Sleep(100 * time.Microsecond)
		over[i] = machine.Mono() - t0 - 100*time.Microsecond
	}
	slices.Sort(over)
	return over[n-2]
}

// maxSleep bounds one sleep of a waiting worker, so that a cancelled run
// stops within it even at a rate of one operation a minute.
const maxSleep = 50 * time.Millisecond

// seriesDigits is the precision of the per-interval histograms: two
// significant digits are plenty for a time series and keep a long pass's
// many histograms small.
const seriesDigits = 2

// openState is one worker's open-loop schedule and what it measured.
type openState struct {
	// sched holds the intended starts of the worker's operations, from
	// base, the machine.Mono time the pass started (set by measure).
	sched []time.Duration
	base  time.Duration
	// corrected holds the latency from the intended starts; the worker's
	// hist holds it from the actual starts.
	corrected  *hdrhistogram.Histogram
	maxBacklog int64
	maxLag     time.Duration
	interval   time.Duration
	// series holds the corrected latency per interval of intended start.
	series []*hdrhistogram.Histogram
}

// schedule returns the intended starts, from the pass's start, of the n
// operations of worker w of workers at a total rate (operations per
// second). Uniform: the worker's operations come every workers/rate
// seconds, worker w offset by w/rate, so the pass offers one every
// 1/rate. Poisson: the gaps are exponential with the same mean, drawn
// from seed and w, so that the workers' arrivals together are a Poisson
// process of the rate.
func schedule(n, w, workers int, rate float64, poisson bool, seed uint64) []time.Duration {
	out := make([]time.Duration, n)
	gap := float64(workers) / rate * 1e9 // ns between one worker's operations
	if !poisson {
		for i := range out {
			out[i] = time.Duration((float64(w) + float64(i)*float64(workers)) / rate * 1e9)
		}
		return out
	}
	rng := rand.New(rand.NewPCG(seed, uint64(w)+1))
	t := 0.0
	for i := range out {
		t += rng.ExpFloat64() * gap
		out[i] = time.Duration(t)
	}
	return out
}

// waitUntil returns at t (a machine.Mono time) or, when the run is
// cancelled, earlier; it returns the clock read that ended the wait. It
// sleeps until spin before t, then spins.
func waitUntil(t, spin time.Duration, wk *worker) time.Duration {
	for {
		now := machine.Mono()
		left := t - now
		switch {
		case left <= 0 || wk.halted():
			return now
		case left > spin:
			time.Sleep(min(left-spin, maxSleep))
		default:
			runtime.Gosched()
		}
	}
}

// timed runs the timed pass of st: open-loop at the driver's rate when it
// has one, else the closed-loop pass.
func (d *driver) timed(st *workloads.Stream, op opKind) (report.Sample, error) {
	if d.rate <= 0 {
		return d.pass(st, op)
	}
	workers := min(d.workers(), max(1, st.Len()))
	seed := d.w.Spec.Seed
	spin := d.spin
	if spin == 0 {
		spin = spinBelow() // calibrated before the clock starts
	}
	if d.forceGC > 0 {
		// From the pass's start to its end (measure calls during); the
		// count is read once a collection in flight at the end is over.
		var count func() int64
		d.during = func() (stop func()) {
			stop, count = d.forceCollections()
			return stop
		}
		defer func() {
			if count != nil {
				d.forced = count()
			}
			d.during = nil
		}()
	}
	return d.measure(st, workers, func(wk *worker, part *workloads.Stream) func() {
		wk.open = &openState{
			sched:     schedule(part.Len(), wk.index, workers, d.rate, d.arrivals == report.ArrivalsPoisson, seed),
			corrected: hdrhistogram.New(1, maxLatency, 3),
			interval:  d.interval,
		}
		return func() { d.openWork(wk, part, op, spin) }
	}, nil)
}

// forceCollections calls runtime.GC every d.forceGC, from another
// goroutine, until stop is called (which returns at once); count waits
// for a collection still in flight and returns how many were forced and
// completed before stop. The collections run as the workers send their
// operations, so the corrected latency shows what a forced collection
// costs a caller on schedule.
func (d *driver) forceCollections() (stop func(), count func() int64) {
	quit, done := make(chan struct{}), make(chan struct{})
	var n int64
	go func() {
		defer close(done)
		t := time.NewTicker(d.forceGC)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				runtime.GC()
				select {
				case <-quit:
					return // completed after the pass: not one of its collections
				default:
					n++
				}
			}
		}
	}()
	return func() { close(quit) }, func() int64 { <-done; return n }
}

// openWork runs one worker's part of an open-loop pass: each operation at
// its intended start or, when behind, at once.
func (d *driver) openWork(wk *worker, part *workloads.Stream, op opKind, spin time.Duration) {
	do := d.openOp(wk, part, op)
	o := wk.open
	ops, keys, start := part.Ops, part.Keys, part.Start
	due := 0 // operations whose intended start has passed
	for j := range ops {
		end := ops[j].KeyEnd
		key := keys[start:end:end]
		start = end
		intended := o.base + o.sched[j]
		now := machine.Mono()
		if now < intended {
			now = waitUntil(intended, spin, wk)
		}
		if wk.halted() || (wk.deadline != 0 && (intended > wk.deadline || now > wk.deadline)) {
			wk.ops = int64(j)
			return
		}
		for due < len(o.sched) && o.base+o.sched[due] <= now {
			due++
		}
		if b := int64(due - j - 1); b > o.maxBacklog {
			o.maxBacklog = b
		}
		o.maxLag = max(o.maxLag, now-intended)
		do(j, key)
		t1 := machine.Mono()
		wk.record(t1 - now)
		o.record(t1-intended, o.sched[j])
	}
}

// record adds one corrected latency, of an operation intended to start
// at offset from the pass's start, to the whole pass and its interval.
func (o *openState) record(d, offset time.Duration) {
	v := min(max(int64(d), 1), maxLatency)
	_ = o.corrected.RecordValue(v) // in range by construction
	if o.interval <= 0 {
		return
	}
	i := int(offset / o.interval)
	for len(o.series) <= i {
		o.series = append(o.series, nil)
	}
	if o.series[i] == nil {
		o.series[i] = hdrhistogram.New(1, maxLatency, seriesDigits)
	}
	_ = o.series[i].RecordValue(v)
}

// openOp returns the operation of kind op on operation j of part, counted
// into wk's tally as the closed-loop loops count it.
func (d *driver) openOp(wk *worker, part *workloads.Stream, op opKind) func(j int, key []byte) {
	a, t := d.a, &wk.tally
	c := &checker{hot: d.w.HasHot()}
	ops, refs, vals := part.Ops, part.ValRefs, part.Vals
	switch op {
	case opLookup:
		return func(j int, key []byte) {
			val, ok, err := a.Get(wk.buf[:0], key)
			wk.buf = val
			c.outcome(t, key, ops[j].Key, ops[j].Tag, val, ok, err)
		}
	case opMixed:
		return func(j int, key []byte) {
			if ops[j].Key&workloads.WriteBit != 0 {
				if err := a.Set(key, workloads.RefValue(vals, refs[j])); err != nil {
					t.fail(fmt.Errorf("set %q: %w", key, err))
				}
				return
			}
			val, ok, err := a.Get(wk.buf[:0], key)
			wk.buf = val
			c.outcome(t, key, ops[j].Key, ops[j].Tag, val, ok, err)
		}
	case opGetOrSet:
		return func(j int, key []byte) {
			val, ok, err := a.Get(wk.buf[:0], key)
			wk.buf = val
			if err == nil && !ok {
				if serr := a.Set(key, workloads.RefValue(vals, refs[j])); serr != nil {
					t.fail(fmt.Errorf("set %q: %w", key, serr))
				}
			}
			c.outcome(t, key, ops[j].Key, ops[j].Tag, val, ok, err)
		}
	case opReadVector:
		fs := a.(engine.Float64sStore)
		return func(j int, key []byte) {
			xs, ok, err := fs.GetFloat64s(wk.vec[:0], key)
			sum := workloads.SumVector(xs)
			vectorOutcome(t, key, ops[j].Key, xs, sum, ok, err)
		}
	}
	panic(fmt.Sprintf("runner: no open-loop form of operation kind %d", op))
}

// openSample adds the open-loop figures of the workers to s: the
// corrected latency becomes s.Latency, the uncorrected one (already in
// s.Latency, from the workers' hist) moves to s.Open.
func (d *driver) openSample(s *report.Sample, wks []worker, elapsed time.Duration) {
	o := &report.OpenLoop{Offered: d.rate, Uncorrected: s.Latency, IntervalNs: float64(d.interval.Nanoseconds())}
	if elapsed > 0 {
		o.Achieved = float64(s.Ops) / elapsed.Seconds()
	}
	corrected := hdrhistogram.New(1, maxLatency, 3)
	uncorrected := hdrhistogram.New(1, maxLatency, 3)
	var series []*hdrhistogram.Histogram
	for i := range wks {
		wo := wks[i].open
		corrected.Merge(wo.corrected)
		uncorrected.Merge(wks[i].hist)
		o.MaxBacklog = max(o.MaxBacklog, wo.maxBacklog)
		o.MaxLagNs = max(o.MaxLagNs, float64(wo.maxLag.Nanoseconds()))
		for j, h := range wo.series {
			for len(series) <= j {
				series = append(series, nil)
			}
			if h == nil {
				continue
			}
			if series[j] == nil {
				series[j] = hdrhistogram.New(1, maxLatency, seriesDigits)
			}
			series[j].Merge(h)
		}
	}
	s.Latency = report.HistLatency(corrected)
	for j, h := range series {
		iv := report.Interval{StartS: (time.Duration(j) * d.interval).Seconds()}
		if h != nil {
			l := report.HistLatency(h)
			iv.Ops, iv.P50, iv.P99, iv.Max = l.Samples, l.P50, l.P99, l.Max
		}
		o.Series = append(o.Series, iv)
	}
	o.CorrectedHist = encodeHist(corrected)
	o.UncorrectedHist = encodeHist(uncorrected)
	s.Open = o
}

// encodeHist is h in HdrHistogram's compressed base64 form, "" if it
// cannot be encoded (the export then says so; the figures stand).
func encodeHist(h *hdrhistogram.Histogram) string {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

// MinGapTimerCosts is the shortest time between one worker's intended starts an
// open loop accepts, in clock-read pairs: each operation costs the loop
// two clock reads besides the operation, so a schedule tighter than this
// measures the clock, not the cache.
const MinGapTimerCosts = 4

// CheckRate refuses a rate the clock cannot schedule on this machine: one
// worker's operations (rate/workers a second) closer together than
// MinGapTimerCosts clock-read pairs of timerCostNs each. The error names
// the highest rate that can be scheduled with this many workers.
func CheckRate(rate float64, workers int, timerCostNs float64) error {
	if timerCostNs <= 0 {
		timerCostNs = 1
	}
	minGap := MinGapTimerCosts * timerCostNs
	limit := float64(workers) * 1e9 / minGap
	if gap := float64(workers) / rate * 1e9; gap < minGap {
		return fmt.Errorf("rate %s/s cannot be scheduled: each of the %d workers would start an operation every %.0f ns, "+
			"below the %.0f ns of %d clock-read pairs here (%.0f ns each); the limit with %d workers is %s/s",
			parse.FormatRate(rate), workers, gap, minGap, MinGapTimerCosts, timerCostNs, workers, parse.FormatRate(math.Floor(limit)))
	}
	return nil
}

// points is the number of rate points of a run: the closed loop alone,
// the open loop at each rate, or the closed loop and the automatic rates.
func (c *Config) points() int {
	switch {
	case c.AutoRate:
		return 1 + len(AutoFractions)
	case len(c.Rates) > 0:
		return len(c.Rates)
	}
	return 1
}

// rateAt is the offered rate of point k for an adapter whose closed-loop
// throughputs (point 0 of an automatic sweep) were closed: 0 for a
// closed loop, and 0 too when an automatic point has no closed-loop
// figure to scale (the closed pass failed).
func (c *Config) rateAt(k int, closed []float64) float64 {
	switch {
	case c.AutoRate && k == 0:
		return 0
	case c.AutoRate:
		if len(closed) == 0 {
			return 0
		}
		var sum float64
		for _, q := range closed {
			sum += q
		}
		return math.Round(AutoFractions[k-1] * sum / float64(len(closed)))
	case len(c.Rates) > 0:
		return c.Rates[k]
	}
	return 0
}

// openNote says how an open-loop phase was run (the table states the
// rate and what corrected means).
func (d *driver) openNote() string {
	return "open loop, " + d.arrivals + " arrivals, every operation timed"
}

// joinNote joins two notes of a phase with "; ".
func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
