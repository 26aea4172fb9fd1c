package gcpause

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
)

// readerKeys is the number of pre-generated keys the reader goroutine
// cycles through while a collection runs: enough to defeat the CPU caches
// of a large cache, small enough (1 MiB) not to matter in the figures.
const readerKeys = 1 << 16

// maxLatency is the largest Get latency the histogram tracks; slower Gets
// are recorded as this value.
const maxLatency = int64(time.Minute)

// ChildOutput is what a child writes on stdout as one JSON object.
type ChildOutput struct {
	GCPause report.GCPause `json:"gc_pause"`
	// Config is the adapter's effective configuration (engine.Configurer).
	Config map[string]string `json:"config,omitempty"`
	// Stats are the adapter's counters after the fill (engine.Statser).
	Stats map[string]uint64 `json:"stats,omitempty"`
	// SettleGCSeconds is the wall time of the untimed runtime.GC that
	// precedes the measured one (see MeasureAdapter).
	SettleGCSeconds float64 `json:"settle_gc_seconds"`
	// FillGCCycles counts the GC cycles completed during the fill.
	FillGCCycles uint64 `json:"fill_gc_cycles"`
	// RSSAfterGCBytes is VmRSS right after the measured collection.
	RSSAfterGCBytes uint64 `json:"rss_after_gc_bytes"`
	// BaselineRSSBytes is VmRSS before the adapter was built.
	BaselineRSSBytes uint64 `json:"baseline_rss_bytes"`
}

// Progress phases a child reports.
const (
	PhaseFill     = "fill"
	PhaseForcedGC = "forced-gc"
	PhaseVerify   = "verify"
	PhaseGCReads  = "gc-reads"
)

// ProgressPrefix starts the progress lines a child writes on stderr:
// "cachebench-progress: PHASE DONE TOTAL". Every other line is a log line.
const ProgressPrefix = "cachebench-progress:"

// progressWriter writes throttled progress lines.
type progressWriter struct {
	w    io.Writer
	last time.Time
}

func (p *progressWriter) report(phase string, done, total int, force bool) {
	if p.w == nil {
		return
	}
	now := time.Now()
	if !force && now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	fmt.Fprintf(p.w, "%s %s %d %d\n", ProgressPrefix, phase, done, total)
}

// MeasureAdapter fills one adapter in this process and measures it, in
// this order:
//
//  1. debug.SetGCPercent(GOGC), one runtime.GC so that start-up garbage is
//     gone, then the baseline: runtime metrics and VmRSS.
//  2. Fill: build the adapter, Set every entry (keys and values generated
//     into two reused buffers, so generation adds no heap objects; its
//     small CPU cost is inside the fill time), Drain an asynchronous
//     cache. FillGCCPUSeconds covers the GC cycles that completed in
//     this span.
//  3. A first runtime.GC, untimed, which finishes any cycle the fill left
//     running and frees the fill's garbage; then the measured runtime.GC:
//     a full cycle over the settled heap, which is what the application
//     pays on every cycle while the cache holds its entries. Heap objects
//     and heap in use are read right after it. STW pause figures are
//     deltas from the baseline to here (fill and both collections).
//  4. The verified sample.
//  5. A reader goroutine Gets pre-generated random keys (allocated only
//     now, so they are in no heap figure) in a loop, timing each Get,
//     across repeated forced collections separated by outside windows,
//     until GCReads Gets fell inside collections and as many outside, or
//     GCReadTime ran out (see readsAcrossGC).
//
// Peak RSS is VmHWM (see PeakRSS) at the end; RSS per entry is (peak − baseline VmRSS)
// / entries. Progress lines go to progress (may be nil).
func MeasureAdapter(ctx context.Context, cfg ChildConfig, progress io.Writer) (*ChildOutput, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f, err := engine.Lookup(cfg.Adapter)
	if err != nil {
		return nil, err
	}
	debug.SetGCPercent(cfg.GOGC)
	pw := &progressWriter{w: progress}
	out := &ChildOutput{GCPause: report.GCPause{
		Adapter: cfg.Adapter, Entries: cfg.Entries, ValueSize: cfg.ValueSize, GOGC: cfg.GOGC, Repetition: cfg.Repetition,
	}}
	res := &out.GCPause
	n := cfg.Entries

	runtime.GC()
	out.BaselineRSSBytes, _ = ReadProcStatus("VmRSS") // 0 off Linux
	s0, err := ReadSnapshot()
	if err != nil {
		return nil, err
	}

	// 2. Fill.
	pw.report(PhaseFill, 0, n, true)
	start := time.Now()
	a, err := f.New(cfg.Budget())
	if err != nil {
		return nil, fmt.Errorf("%s: new: %w", cfg.Adapter, err)
	}
	defer func() {
		// As in the runner: no Close after a panic (it could wait for a
		// lock the panic left held); the panic goes on.
		if p := recover(); p != nil {
			panic(p)
		}
		a.Close()
	}()
	if err := fill(ctx, a, cfg, pw); err != nil {
		return nil, err
	}
	res.FillSeconds = time.Since(start).Seconds()
	pw.report(PhaseFill, n, n, true)
	s1, err := ReadSnapshot()
	if err != nil {
		return nil, err
	}
	res.FillGCCPUSeconds = s1.GCCPUSeconds - s0.GCCPUSeconds
	out.FillGCCycles = s1.GCCycles - s0.GCCycles

	// 3. Settle, then the measured full collection.
	if err := forcedGC(out, s0, pw); err != nil {
		return nil, err
	}
	out.RSSAfterGCBytes, _ = ReadProcStatus("VmRSS")
	if c, ok := a.(engine.Configurer); ok {
		out.Config = c.Config()
	}
	if s, ok := a.(engine.Statser); ok {
		out.Stats = s.Stats()
	}

	// 4. Verified sample.
	if err := verifySample(ctx, a, cfg, res, pw, progress); err != nil {
		return nil, err
	}

	// 5. Gets inside and outside forced collections.
	pw.report(PhaseGCReads, 0, cfg.GCReads, true)
	rp, err := readsAcrossGC(ctx, a, cfg, time.Duration(res.ForcedGCSeconds*float64(time.Second)), pw)
	if err != nil {
		return nil, err
	}
	res.GetDuringGC, res.GetOutsideGC, res.GCReads = rp.in, rp.out, rp.phase
	pw.report(PhaseGCReads, cfg.GCReads, cfg.GCReads, true)

	if hwm, err := PeakRSS(); err == nil {
		// The kernel raises its high-water mark only on some events (an
		// munmap, not the runtime's MADV_DONTNEED scavenging), so a VmRSS
		// this child read earlier can exceed the VmHWM it reads now: the
		// peak is at least every RSS observed.
		hwm = max(hwm, out.RSSAfterGCBytes)
		res.PeakRSSBytes = hwm
		if hwm > out.BaselineRSSBytes {
			res.RSSBytesPerEntry = float64(hwm-out.BaselineRSSBytes) / float64(n)
		}
	}
	return out, nil
}

// fill Sets every entry, keys and values generated into two reused
// buffers, and drains an asynchronous cache.
func fill(ctx context.Context, a engine.Adapter, cfg ChildConfig, pw *progressWriter) error {
	n := cfg.Entries
	kbuf := make([]byte, KeyLen)
	vbuf := make([]byte, cfg.ValueSize)
	const chunk = 1 << 14
	for i := 0; i < n; i++ {
		if i&(chunk-1) == 0 && i > 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("%s: fill interrupted at entry %d: %w", cfg.Adapter, i, err)
			}
			pw.report(PhaseFill, i, n, false)
		}
		key := FormatKey(kbuf, uint64(i))
		FillValue(vbuf, uint64(i))
		if err := a.Set(key, vbuf); err != nil {
			return fmt.Errorf("%s: set %s: %w", cfg.Adapter, key, err)
		}
	}
	if d, ok := a.(engine.Drainer); ok {
		d.Drain()
	}
	return nil
}

// forcedGC runs the untimed settling collection and the measured one, and
// records the collection's cost, the heap after it, and the pauses since
// the baseline s0.
func forcedGC(out *ChildOutput, s0 Snapshot, pw *progressWriter) error {
	res := &out.GCPause
	pw.report(PhaseForcedGC, 0, 2, true)
	t := time.Now()
	runtime.GC()
	out.SettleGCSeconds = time.Since(t).Seconds()
	pw.report(PhaseForcedGC, 1, 2, true)
	s2, err := ReadSnapshot()
	if err != nil {
		return err
	}
	t = time.Now()
	runtime.GC()
	res.ForcedGCSeconds = time.Since(t).Seconds()
	s3, err := ReadSnapshot()
	if err != nil {
		return err
	}
	pw.report(PhaseForcedGC, 2, 2, true)
	res.ForcedGCCPUSecond = s3.GCCPUSeconds - s2.GCCPUSeconds
	res.HeapObjects, res.BaselineHeapObjects = s3.HeapObjects, s0.HeapObjects
	res.HeapInUseBytes, res.BaselineHeapInUseBytes = s3.HeapInUseBytes, s0.HeapInUseBytes
	ps, err := PauseDelta(s0.Pauses, s3.Pauses)
	if err != nil {
		return err
	}
	res.PauseCount, res.PauseMaxSeconds, res.PauseTotalSeconds = ps.Count, ps.MaxSeconds, ps.TotalSeconds
	return nil
}

// maxLoggedWrong bounds the wrong values described on the log.
const maxLoggedWrong = 5

// verifySample reads back cfg.Verify random entries (all of them when
// there are not more) and counts the missing and wrong ones; Verified
// counts the ones that came back exactly as written.
func verifySample(ctx context.Context, a engine.Adapter, cfg ChildConfig, res *report.GCPause, pw *progressWriter, log io.Writer) error {
	n := cfg.Verify
	all := cfg.Entries <= cfg.Verify
	if all {
		n = cfg.Entries
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7665726966790000|uint64(cfg.Repetition)))
	kbuf := make([]byte, KeyLen)
	scratch := make([]byte, cfg.ValueSize)
	dst := make([]byte, 0, cfg.ValueSize)
	for j := 0; j < n; j++ {
		if j&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("%s: verify interrupted: %w", cfg.Adapter, err)
			}
			pw.report(PhaseVerify, j, n, false)
		}
		i := uint64(j)
		if !all {
			i = rng.Uint64N(uint64(cfg.Entries))
		}
		key := FormatKey(kbuf, i)
		var found bool
		var err error
		dst, found, err = a.Get(dst[:0], key)
		if err != nil {
			return fmt.Errorf("%s: get %s: %w", cfg.Adapter, key, err)
		}
		switch {
		case !found:
			res.Missing++
		case !VerifyValue(dst, scratch, i, cfg.ValueSize):
			res.Wrong++
			if res.Wrong <= maxLoggedWrong && log != nil {
				idx, ok := DecodeValue(dst)
				fmt.Fprintf(log, "%s: wrong value for %s: %d bytes, claims key index %d (check ok: %v)\n",
					cfg.Adapter, key, len(dst), idx, ok)
			}
		default:
			res.Verified++
		}
	}
	pw.report(PhaseVerify, n, n, true)
	return nil
}
