package runner

import (
	"errors"
	"fmt"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/machine"
	"github.com/cachebench/cachebench/internal/workloads"
)

// The hot loops. Each reads its operations from a workloads.Stream front
// to back (the next key is the next bytes of the stream), calls the
// adapter, and checks a value read against the operation's tag (computed
// when the stream was laid out), reading the ends of the bytes the adapter
// just returned and nothing else. So the harness adds no random memory
// access of its own to an operation: what it costs
// is the harness floor, measured by the null probe through these same
// loops. Latency is sampled on one operation in every (a power of two),
// timed with machine.Mono, one clock read at each end.

// tally is one worker's outcome counters.
type tally struct {
	hits, misses         int64
	hotHits, hotMisses   int64
	coldHits, coldMisses int64
	wrong, errs          int64
	// others counts getLoop's lookups that went through tally.other.
	others   int64
	firstErr error
	// failures counts the errors that are not an entry refused for its
	// size (engine.ErrEntryTooLarge, part of what a cache is measured on):
	// a server gone, a timeout, a broken store. Any of them fails the
	// adapter's run (driver.measure); firstFailure is the first.
	failures     int64
	firstFailure error
}

func (t *tally) fail(err error) {
	t.errs++
	if t.firstErr == nil {
		t.firstErr = err
	}
	if !errors.Is(err, engine.ErrEntryTooLarge) {
		t.failures++
		if t.firstFailure == nil {
			t.firstFailure = err
		}
	}
}

// checker verifies values read back against the operation's tag, from
// the value's end tags only (workloads.CheckTag).
type checker struct {
	hot bool // the workload distinguishes hot keys
}

// hit counts a hit and checks the value against the operation's tag.
func (c *checker) hit(t *tally, tag uint32, val []byte) {
	t.hits++
	if !workloads.CheckTag(val, tag) {
		t.wrong++
	}
}

// temp counts a hit or a miss by key temperature; only workloads that
// distinguish hot keys (hotcold, zipf) call it.
func (c *checker) temp(t *tally, op uint32, hit bool) {
	switch hot := op&workloads.HotBit != 0; {
	case hit && hot:
		t.hotHits++
	case hit:
		t.coldHits++
	case hot:
		t.hotMisses++
	default:
		t.coldMisses++
	}
}

// outcome counts one Get's result: an error, a checked hit or a miss.
func (c *checker) outcome(t *tally, key []byte, op, tag uint32, val []byte, ok bool, err error) {
	if err != nil {
		t.fail(fmt.Errorf("get %q: %w", key, err))
		return
	}
	if ok {
		c.hit(t, tag, val)
	} else {
		t.misses++
	}
	if c.hot {
		c.temp(t, op, ok)
	}
}

// sampler records sampled latencies, and says at a sampled operation
// whether a pass with a time limit is past it (see worker.past) and
// whether the run was cancelled (halted).
type sampler interface {
	record(time.Duration)
	past(t time.Duration, i int) bool
	halted() bool
}

// setLoop sets every operation's key to its value. The operations run in
// runs of every: the first of each run is timed on its own (the Set call
// and nothing else), the rest go through setRun, a loop with no sampling
// branch in it.
func setLoop(a engine.Adapter, st *workloads.Stream, every int, s sampler, t *tally) {
	ops, keys, start := st.Ops, st.Keys, st.Start
	for lo := 0; lo < len(ops); lo += every {
		if s.halted() {
			return
		}
		end := ops[lo].KeyEnd
		key := keys[start:end:end]
		val := workloads.RefValue(st.Vals, st.ValRefs[lo])
		t0 := machine.Mono()
		err := a.Set(key, val)
		s.record(machine.Mono() - t0)
		if err != nil {
			t.fail(fmt.Errorf("set %q: %w", key, err))
		}
		start = setRun(a, st, lo+1, min(lo+every, len(ops)), end, t)
	}
}

// setRun sets the keys of operations [lo, hi) of st, whose first key
// starts at start in st.Keys, and returns where the next key starts.
func setRun(a engine.Adapter, st *workloads.Stream, lo, hi int, start uint32, t *tally) uint32 {
	ops, keys, refs, vals := st.Ops[:hi], st.Keys, st.ValRefs[:hi], st.Vals
	for j := lo; j < hi; j++ {
		end := ops[j].KeyEnd
		key := keys[start:end:end]
		start = end
		if err := a.Set(key, workloads.RefValue(vals, refs[j])); err != nil {
			t.fail(fmt.Errorf("set %q: %w", key, err))
		}
	}
	return start
}

// getLoop looks every operation's key up and checks what it finds. Like
// setLoop it runs the operations in runs of every, the first timed on
// its own (the Get call and nothing else), the rest through getRun. A
// lookup that returns its value, checked, costs no counting: the other
// outcomes (an error, a miss, a wrong value), and every lookup of a
// workload that counts hits by key temperature, go through tally.other,
// a call off the common path, and the hits are what is left when the
// loop ends. Keeping the loop's work per operation to the adapter call
// and the two compares of CheckTag is what keeps the harness floor low.
func getLoop(a engine.Adapter, st *workloads.Stream, c *checker, buf []byte, every int, s sampler, t *tally) []byte {
	ops, keys, start := st.Ops, st.Keys, st.Start
	others := t.others
	for lo := 0; lo < len(ops); lo += every {
		if s.halted() {
			t.hits += int64(lo) - (t.others - others)
			return buf
		}
		end := ops[lo].KeyEnd
		key := keys[start:end:end]
		t0 := machine.Mono()
		val, ok, err := a.Get(buf[:0], key)
		s.record(machine.Mono() - t0)
		buf = val
		if c.hot || err != nil || !ok || !workloads.CheckTag(val, ops[lo].Tag) {
			t.other(c, key, &ops[lo], val, ok, err)
		}
		buf, start = getRun(a, st, lo+1, min(lo+every, len(ops)), end, c, buf, t)
	}
	t.hits += int64(len(ops)) - (t.others - others)
	return buf
}

// getRun looks up the keys of operations [lo, hi) of st, whose first key
// starts at start in st.Keys, and returns the value buffer and where the
// next key starts.
func getRun(a engine.Adapter, st *workloads.Stream, lo, hi int, start uint32, c *checker, buf []byte, t *tally) ([]byte, uint32) {
	ops, keys, hot := st.Ops[:hi], st.Keys, c.hot
	for j := lo; j < hi; j++ {
		end := ops[j].KeyEnd
		key := keys[start:end:end]
		start = end
		val, ok, err := a.Get(buf[:0], key)
		buf = val
		if hot || err != nil || !ok || !workloads.CheckTag(val, ops[j].Tag) {
			t.other(c, key, &ops[j], val, ok, err)
		}
	}
	return buf, start
}

// other counts, for getLoop, a lookup that was not a plain checked hit.
//
//go:noinline
func (t *tally) other(c *checker, key []byte, op *workloads.Op, val []byte, ok bool, err error) {
	t.others++
	c.outcome(t, key, op.Key, op.Tag, val, ok, err)
}

// mixedLoop runs a read/write mix: operations with WriteBit set their
// value, the others are checked lookups.
func mixedLoop(a engine.Adapter, st *workloads.Stream, c *checker, buf []byte, every int, s sampler, t *tally) []byte {
	ops, keys, refs, vals := st.Ops, st.Keys, st.ValRefs, st.Vals
	mask := every - 1
	start := st.Start
	var ok bool
	var err error
	for j := range ops {
		end := ops[j].KeyEnd
		key := keys[start:end:end]
		start = end
		op := ops[j].Key
		timed := j&mask == 0
		var t0 time.Duration
		if timed {
			t0 = machine.Mono()
			if s.past(t0, j) {
				break
			}
		}
		if op&workloads.WriteBit != 0 {
			err = a.Set(key, workloads.RefValue(vals, refs[j]))
			if timed {
				s.record(machine.Mono() - t0)
			}
			if err != nil {
				t.fail(fmt.Errorf("set %q: %w", key, err))
			}
			continue
		}
		buf, ok, err = a.Get(buf[:0], key)
		if timed {
			s.record(machine.Mono() - t0)
		}
		c.outcome(t, key, op, ops[j].Tag, buf, ok, err)
	}
	return buf
}

// getOrSetLoop is look-aside use: get, and on a miss set the value.
func getOrSetLoop(a engine.Adapter, st *workloads.Stream, c *checker, buf []byte, every int, s sampler, t *tally) []byte {
	ops, keys, refs, vals := st.Ops, st.Keys, st.ValRefs, st.Vals
	mask := every - 1
	start := st.Start
	var ok bool
	var err error
	for j := range ops {
		end := ops[j].KeyEnd
		key := keys[start:end:end]
		start = end
		op := ops[j].Key
		timed := j&mask == 0
		var t0 time.Duration
		if timed {
			t0 = machine.Mono()
			if s.past(t0, j) {
				break
			}
		}
		buf, ok, err = a.Get(buf[:0], key)
		if err == nil && !ok {
			if serr := a.Set(key, workloads.RefValue(vals, refs[j])); serr != nil {
				t.fail(fmt.Errorf("set %q: %w", key, serr))
			}
		}
		if timed {
			s.record(machine.Mono() - t0)
		}
		c.outcome(t, key, op, ops[j].Tag, buf, ok, err)
	}
	return buf
}

// setVectorLoop stores every operation's key's vector (read-vector's
// insert), found by key index in vecs (Workload.Vectors): in the insert
// order, a sequential read. Like setLoop it times the first operation of
// each run of every on its own.
func setVectorLoop(fs engine.Float64sStore, st *workloads.Stream, vecs []float64, every int, s sampler, t *tally) {
	ops, keys, start := st.Ops, st.Keys, st.Start
	for j := range ops {
		end := ops[j].KeyEnd
		key := keys[start:end:end]
		start = end
		a := int(ops[j].Key&workloads.KeyMask) * workloads.VectorLen
		vec := vecs[a : a+workloads.VectorLen : a+workloads.VectorLen]
		var err error
		if j&(every-1) == 0 {
			if s.halted() {
				return
			}
			t0 := machine.Mono()
			err = fs.SetFloat64s(key, vec)
			s.record(machine.Mono() - t0)
		} else {
			err = fs.SetFloat64s(key, vec)
		}
		if err != nil {
			t.fail(fmt.Errorf("set %q: %w", key, err))
		}
	}
}

// readVectorLoop reads every operation's key's vector and uses it: sums
// it (workloads.SumVector) and checks the sum, the length and the last
// element against the key index (workloads.VectorOK), from the vector the
// adapter returned and the operation alone. A sampled latency covers the
// read and the sum, the use the workload measures. vec is the scratch
// space every read gets as dst; it is never replaced by what a read
// returns, which may be the store's own read-only memory.
func readVectorLoop(fs engine.Float64sStore, st *workloads.Stream, vec []float64, every int, s sampler, t *tally) {
	ops, keys, start := st.Ops, st.Keys, st.Start
	for lo := 0; lo < len(ops); lo += every {
		if s.halted() {
			return
		}
		end := ops[lo].KeyEnd
		key := keys[start:end:end]
		t0 := machine.Mono()
		xs, ok, err := fs.GetFloat64s(vec[:0], key)
		sum := workloads.SumVector(xs)
		s.record(machine.Mono() - t0)
		vectorOutcome(t, key, ops[lo].Key, xs, sum, ok, err)
		start = readVectorRun(fs, st, lo+1, min(lo+every, len(ops)), end, vec, t)
	}
}

// readVectorRun reads operations [lo, hi) of st as readVectorLoop does,
// without timing them, and returns where the next key starts.
func readVectorRun(fs engine.Float64sStore, st *workloads.Stream, lo, hi int, start uint32, vec []float64, t *tally) uint32 {
	ops, keys := st.Ops[:hi], st.Keys
	for j := lo; j < hi; j++ {
		end := ops[j].KeyEnd
		key := keys[start:end:end]
		start = end
		xs, ok, err := fs.GetFloat64s(vec[:0], key)
		sum := workloads.SumVector(xs)
		if err != nil || !ok || !workloads.VectorOK(xs, sum, ops[j].Key&workloads.KeyMask) {
			vectorOther(t, key, ops[j].Key, xs, sum, ok, err)
		} else {
			t.hits++
		}
	}
	return start
}

// vectorOutcome counts one vector read: a checked hit, or through
// vectorOther an error, a miss or a wrong vector.
func vectorOutcome(t *tally, key []byte, op uint32, xs []float64, sum float64, ok bool, err error) {
	if err == nil && ok && workloads.VectorOK(xs, sum, op&workloads.KeyMask) {
		t.hits++
		return
	}
	vectorOther(t, key, op, xs, sum, ok, err)
}

// vectorOther counts a vector read that was not a checked hit; off the
// common path.
//
//go:noinline
func vectorOther(t *tally, key []byte, op uint32, xs []float64, sum float64, ok bool, err error) {
	switch {
	case err != nil:
		t.fail(fmt.Errorf("get vector %q: %w", key, err))
	case !ok:
		t.misses++
	default:
		t.hits++
		if !workloads.VectorOK(xs, sum, op&workloads.KeyMask) {
			t.wrong++
		}
	}
}
