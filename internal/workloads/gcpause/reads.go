package gcpause

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
)

// Outside windows (between two forced collections) last as long as the
// last collection did, within these bounds: long enough that Gets outside
// collections are as many as inside, short enough that a slow collection
// (seconds, for 20M pointers) does not double the phase.
const (
	minOutsideWindow = time.Millisecond
	maxOutsideWindow = 250 * time.Millisecond
)

// readPhase is what the read phase measured.
type readPhase struct {
	in, out report.Latency
	phase   report.GCReadPhase
}

// readCounters are what the reader goroutine publishes to the goroutine
// running the collections.
type readCounters struct {
	// seq is odd while a forced collection runs: the collecting goroutine
	// increments it right before runtime.GC and right after it returns.
	seq atomic.Uint64
	// in and out count the Gets recorded so far on each side (published
	// every few Gets), stop ends the reader.
	in, out atomic.Int64
	stop    atomic.Bool
}

// readsAcrossGC times Gets from a reader goroutine while this goroutine
// alternates outside windows and forced collections (runtime.GC), until at
// least cfg.GCReads Gets fell inside collections and as many outside, or
// cfg.GCReadTime ran out. A Get counts as inside when a forced collection
// ran at any moment between the two clock reads around it (mark and sweep:
// runtime.GC returns after both), and as outside otherwise. Collections
// the runtime starts by itself (an adapter whose Get allocates) are
// counted in the phase's BackgroundCycles: the Gets they overlap count as
// outside. lastGC is the wall time of the last collection, to size the
// first outside window.
func readsAcrossGC(ctx context.Context, a engine.Adapter, cfg ChildConfig, lastGC time.Duration, pw *progressWriter) (readPhase, error) {
	keys := readerKeySet(cfg)
	var c readCounters
	inHist := hdrhistogram.New(1, maxLatency, 3)
	outHist := hdrhistogram.New(1, maxLatency, 3)
	done := make(chan error, 1)
	go func() { done <- readLoop(a, cfg, keys, &c, inHist, outHist) }()

	before, err := ReadSnapshot()
	if err != nil {
		c.stop.Store(true)
		<-done
		return readPhase{}, err
	}
	target := int64(cfg.GCReads)
	start := time.Now()
	deadline := start.Add(cfg.GCReadTime)
	var rp readPhase
	rp.phase.Target = cfg.GCReads
	for {
		time.Sleep(min(max(lastGC, minOutsideWindow), maxOutsideWindow))
		c.seq.Add(1)
		t := time.Now()
		runtime.GC()
		lastGC = time.Since(t)
		c.seq.Add(1)
		rp.phase.Cycles++
		in, out := c.in.Load(), c.out.Load()
		pw.report(PhaseGCReads, int(min(in, target)), int(target), false)
		if in >= target && out >= target {
			break
		}
		if err := ctx.Err(); err != nil {
			c.stop.Store(true)
			<-done
			return readPhase{}, fmt.Errorf("%s: reads during GC interrupted: %w", cfg.Adapter, err)
		}
		select {
		case err := <-done:
			// The reader stops by itself only on a failed Get.
			return readPhase{}, err
		default:
		}
		if time.Now().After(deadline) {
			rp.phase.TimeBound = true
			break
		}
	}
	c.stop.Store(true)
	if err := <-done; err != nil {
		return readPhase{}, err
	}
	rp.phase.Seconds = time.Since(start).Seconds()
	after, err := ReadSnapshot()
	if err != nil {
		return readPhase{}, err
	}
	if forced := uint64(rp.phase.Cycles); after.GCCycles-before.GCCycles > forced {
		rp.phase.BackgroundCycles = after.GCCycles - before.GCCycles - forced
	}
	rp.in, rp.out = report.HistLatency(inHist), report.HistLatency(outHist)
	return rp, nil
}

// readerSlot is the size of one pre-generated reader key: a length byte,
// then the key ("key_%d", at most KeyLen bytes).
const readerSlot = 1 + KeyLen

// readerKeySet pre-generates the reader's keys (allocated only now, so
// they are in no heap figure), readerKeys of them in fixed slots of one
// pointer-free buffer.
func readerKeySet(cfg ChildConfig) []byte {
	nk := min(cfg.Entries, readerKeys)
	keys := make([]byte, nk*readerSlot)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7265616465720000|uint64(cfg.Repetition)))
	for j := 0; j < nk; j++ {
		slot := keys[j*readerSlot:]
		slot[0] = byte(len(FormatKey(slot[1:], rng.Uint64N(uint64(cfg.Entries)))))
	}
	return keys
}

// publishEvery is how many Gets the reader does between two publications
// of its counts: an atomic store per Get would be part of what is timed
// next to it.
const publishEvery = 64

// readLoop is the reader goroutine: it Gets keys in turn, timing each one,
// into inHist or outHist by c.seq, until c.stop.
func readLoop(a engine.Adapter, cfg ChildConfig, keys []byte, c *readCounters, inHist, outHist *hdrhistogram.Histogram) error {
	nk := len(keys) / readerSlot
	dst := make([]byte, 0, cfg.ValueSize)
	var in, out int64
	var err error
	for j, n := 0, 0; ; j, n = j+1, n+1 {
		if j == nk {
			j = 0
		}
		slot := keys[j*readerSlot:]
		k := slot[1 : 1+slot[0]]
		s0 := c.seq.Load()
		t := time.Now()
		dst, _, err = a.Get(dst[:0], k)
		d := time.Since(t).Nanoseconds()
		s1 := c.seq.Load()
		if err != nil {
			return fmt.Errorf("%s: get %s during the GC reads: %w", cfg.Adapter, k, err)
		}
		// RecordValue fails only outside [1, maxLatency]: clamp.
		d = min(max(d, 1), maxLatency)
		if s0 == s1 && s0%2 == 0 {
			_ = outHist.RecordValue(d)
			out++
		} else {
			_ = inHist.RecordValue(d)
			in++
		}
		if n%publishEvery == 0 {
			c.in.Store(in)
			c.out.Store(out)
			if c.stop.Load() {
				return nil
			}
		}
	}
}
