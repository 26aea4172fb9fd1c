package hitratio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// Row is one adapter at one capacity of one trace.
type Row struct {
	Adapter  string `json:"adapter"`
	Capacity string `json:"capacity"`
	Budget
	Requests     int64   `json:"requests"`
	Hits         int64   `json:"hits"`
	ReqBytes     int64   `json:"request_bytes"`
	HitBytes     int64   `json:"hit_bytes"`
	HitRatio     float64 `json:"hit_ratio"`
	ByteHitRatio float64 `json:"byte_hit_ratio"`
	// Held is the adapter's entry count at the end (engine.Lener), -1
	// when it cannot count.
	Held int `json:"held"`
	// Peak is the largest entry count sampled during the replay (every
	// peakEvery requests and at the end), -1 when it cannot count.
	Peak int `json:"peak_held"`
	// Refused counts Sets the adapter refused as too large.
	Refused int64 `json:"refused,omitempty"`
	// Truncated counts values cut to MaxValue bytes.
	Truncated int64 `json:"truncated,omitempty"`
	// SetErrors counts other failed Sets (the replay goes on: a cache
	// that cannot store an object misses it next time); FirstError is
	// the first one's message.
	SetErrors  int64  `json:"set_errors,omitempty"`
	FirstError string `json:"first_error,omitempty"`
	// Wrong counts hits that returned another object's value.
	Wrong   int64   `json:"wrong,omitempty"`
	Flags   []Flag  `json:"flags,omitempty"`
	Seconds float64 `json:"seconds"`
	// Runs holds the object hit ratio of every replay of the cell, in
	// order, when the sweep repeated them (Config.Repeat); the row's other
	// figures are those of the replay with the median.
	Runs []float64 `json:"runs,omitempty"`
	// Unconfigurable says why the adapter cannot be configured at this
	// capacity (its constructor refused the budget); the cell has no
	// figures.
	Unconfigurable string `json:"unconfigurable,omitempty"`
	// Failed is the error that stopped this replay; the cell has no
	// figures.
	Failed string `json:"failed,omitempty"`
	// Sample, in a sampled replay, says how the cell stands for its
	// capacity on the whole trace, and its standard errors.
	Sample *CellSample `json:"sample,omitempty"`
}

// Ran reports whether the cell has figures.
func (r *Row) Ran() bool { return r.Unconfigurable == "" && r.Failed == "" }

// FlagKind names what is wrong with a cell whose figures exist.
type FlagKind string

// The kinds of flag a row can carry.
const (
	// FlagOverBudget: the adapter held more than overBudgetSlack times its
	// entry budget at the end or at one of the samples taken during the
	// replay.
	FlagOverBudget FlagKind = "over-budget"
	// FlagAboveOPT: the hit ratio beats OPT at the same entry budget, so
	// the cache held more entries than its budget at some point.
	FlagAboveOPT FlagKind = "above-opt"
	// FlagSetErrors: Sets failed (first_error in the JSON).
	FlagSetErrors FlagKind = "set-errors"
	// FlagWrongValues: hits returned another object's value.
	FlagWrongValues FlagKind = "wrong-values"
)

// Flag marks a cell that is not comparable with the others, and why.
type Flag struct {
	Kind   FlagKind `json:"kind"`
	Detail string   `json:"detail"`
}

// unconfigurable is the error of an adapter that refuses a budget.
type unconfigurable struct{ why string }

func (e *unconfigurable) Error() string { return e.why }

func (r *Row) count(hit bool, size uint32) {
	r.Requests++
	r.ReqBytes += int64(size)
	if hit {
		r.Hits++
		r.HitBytes += int64(size)
	}
}

func (r *Row) finish() {
	if r.Requests > 0 {
		r.HitRatio = float64(r.Hits) / float64(r.Requests)
	}
	if r.ReqBytes > 0 {
		r.ByteHitRatio = float64(r.HitBytes) / float64(r.ReqBytes)
	}
}

// MaxValue caps the value stored for one object. Larger objects are
// stored cut to this size (counted in Row.Truncated), so a trace of huge
// objects cannot make a replay allocate without bound.
const MaxValue = 1 << 20

// overBudgetSlack is how far above its entry budget an adapter may end
// before its row is flagged: byte-bounded caches legitimately hold more
// small objects than the mean-size allowance, but not several times more.
const overBudgetSlack = 1.25

// peakEvery is how many requests pass between two samples of an
// adapter's entry count: often enough to see a cache that overshoots its
// budget between maintenance runs, rarely enough that counting (a sum
// over shards for some) costs nothing next to the replay.
const peakEvery = 256

// replayAdapter replays the normalized trace through a fresh adapter as
// get-or-set: Get, and on a miss Set the object. Every value carries its
// object ID in its first 8 bytes, checked on each hit. Unless async, an
// adapter that maintains its policy on another goroutine (engine.Drainer:
// otter, theine, ristretto) is drained after every Set, so that it holds
// its budget at every request, as a simulator with a same-thread executor
// measures it; asynchronously it can hold several times its budget
// between maintenance runs on a small cache, and its hit ratio then
// measures the extra room, not its policy.
// A non-nil t counts every object's requests and hits.
func replayAdapter(n *trace.Normalized, name string, b Budget, async bool, t tally) (row Row, err error) {
	fac, err := engine.Lookup(name)
	if err != nil {
		return row, err
	}
	maxVal := int(min(n.MaxSize, MaxValue))
	a, err := fac.New(engine.Options{Entries: b.Entries, MemoryBytes: b.Bytes, MaxValueSize: maxVal})
	if err != nil {
		return Row{Adapter: name, Budget: b, Held: -1}, &unconfigurable{fmt.Sprintf("%d entries / %d bytes refused: %v", b.Entries, b.Bytes, err)}
	}
	defer func() {
		// A cache that panics may hold its own locks, which its Close
		// would wait for forever (shardcache's does): the panic fails
		// this cell and the cache is abandoned, not closed.
		if p := recover(); p != nil {
			err = fmt.Errorf("%s panicked after %d requests: %v", name, row.Requests, p)
			return
		}
		err = errors.Join(err, a.Close())
	}()
	f, err := n.Open()
	if err != nil {
		return row, err
	}
	defer f.Close()
	row = Row{Adapter: name, Budget: b, Held: -1, Peak: -1}
	r := replay{a: a, maxVal: maxVal, row: &row, async: async, t: t}
	r.drain, _ = a.(engine.Drainer)
	r.lener, _ = a.(engine.Lener)
	start := time.Now()
	if err := r.getOrSet(f); err != nil {
		return row, fmt.Errorf("%s: %w", name, err)
	}
	row.Seconds = time.Since(start).Seconds()
	if r.drain != nil {
		r.drain.Drain()
	}
	if r.lener != nil {
		row.Held = r.lener.Len()
		row.Peak = max(row.Peak, row.Held)
		if float64(row.Peak) > float64(b.Entries)*overBudgetSlack+1 {
			row.Flags = append(row.Flags, Flag{FlagOverBudget, fmt.Sprintf("held up to %d entries (%d at the end), budget %d", row.Peak, row.Held, b.Entries)})
		}
	}
	if row.SetErrors > 0 {
		row.Flags = append(row.Flags, Flag{FlagSetErrors, fmt.Sprintf("%d of %d Sets failed: %s", row.SetErrors, row.Requests-row.Hits, row.FirstError)})
	}
	if row.Wrong > 0 {
		row.Flags = append(row.Flags, Flag{FlagWrongValues, fmt.Sprintf("%d hits returned another object's value", row.Wrong)})
	}
	row.finish()
	return row, nil
}

// replay is one adapter's get-or-set loop and what it samples.
type replay struct {
	a      engine.Adapter
	maxVal int
	row    *Row
	drain  engine.Drainer // nil when the adapter has no pending work
	async  bool           // drain only at the end, not after every Set
	lener  engine.Lener   // nil when the adapter cannot count
	t      tally          // nil unless sampled
}

func (p *replay) getOrSet(r trace.Reader) error {
	a, maxVal, row := p.a, p.maxVal, p.row
	var key [KeyBytes]byte
	val := make([]byte, max(maxVal, KeyBytes))
	dst := make([]byte, 0, len(val))
	var q trace.Request
	for {
		if p.lener != nil && row.Requests%peakEvery == 0 {
			row.Peak = max(row.Peak, p.lener.Len())
		}
		err := r.Next(&q)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		binary.LittleEndian.PutUint64(key[:], q.ID)
		var hit bool
		dst, hit, err = a.Get(dst[:0], key[:])
		if err != nil {
			return fmt.Errorf("get object %d: %w", q.ID, err)
		}
		row.count(hit, q.Size)
		if p.t != nil {
			p.t.add(q.ID, hit, q.Size)
		}
		if hit {
			if len(dst) >= KeyBytes && binary.LittleEndian.Uint64(dst) != q.ID {
				row.Wrong++
			}
			continue
		}
		size := int(q.Size)
		if size > maxVal {
			size = maxVal
			row.Truncated++
		}
		v := val[:size]
		if size >= KeyBytes {
			binary.LittleEndian.PutUint64(v, q.ID)
		}
		if err := a.Set(key[:], v); errors.Is(err, engine.ErrEntryTooLarge) {
			row.Refused++
		} else if err != nil {
			if row.SetErrors == 0 {
				row.FirstError = fmt.Sprintf("set object %d (%d bytes): %v", q.ID, size, err)
			}
			row.SetErrors++
		}
		if p.drain != nil && !p.async {
			p.drain.Drain()
		}
	}
}

// alwaysMiss misses every Get and drops every Set: replaying a trace
// through it measures the reader and the replay loop alone. It is not the
// runner's harness-floor probe (engine.ProbeName), which hits every key.
type alwaysMiss struct{}

func (alwaysMiss) Name() string                              { return "always-miss" }
func (alwaysMiss) Set(key, val []byte) error                 { return nil }
func (alwaysMiss) Get(dst, key []byte) ([]byte, bool, error) { return dst, false, nil }
func (alwaysMiss) Close() error                              { return nil }

// ReaderSpeed replays r through alwaysMiss and returns the requests
// replayed per second: the floor under every adapter's replay.
func ReaderSpeed(r trace.Reader, maxVal int) (requests int64, perSec float64, err error) {
	var row Row
	start := time.Now()
	if err := (&replay{a: alwaysMiss{}, maxVal: maxVal, row: &row}).getOrSet(r); err != nil {
		return 0, 0, err
	}
	el := time.Since(start).Seconds()
	return row.Requests, float64(row.Requests) / max(el, 1e-9), nil
}

// readerSpeedRequests is how many requests of a trace measure
// TraceResult.ReaderPerSec: enough for a steady rate, few enough that the
// measure costs a small part of one replay of a long trace.
const readerSpeedRequests = 1 << 21

// prefix reads the first left requests of r.
type prefix struct {
	r    trace.Reader
	left int64
}

// Next implements trace.Reader.
func (p *prefix) Next(q *trace.Request) error {
	if p.left <= 0 {
		return io.EOF
	}
	p.left--
	return p.r.Next(q)
}
