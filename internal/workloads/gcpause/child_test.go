package gcpause

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cachebench/cachebench/internal/engine"
	_ "github.com/cachebench/cachebench/internal/engine/adapters"
	"github.com/cachebench/cachebench/internal/report"
)

// faultyAdapter is a map that loses every 7th key and returns key 3's
// value for every 11th key, so that the verified sample must find both.
type faultyAdapter struct {
	mu     sync.Mutex
	m      map[string][]byte
	setErr bool
}

func (a *faultyAdapter) Name() string { return "gcpause-test-faulty" }

func (a *faultyAdapter) Set(key, val []byte) error {
	if a.setErr && string(key) == "key_5" {
		return errors.New("no room")
	}
	a.mu.Lock()
	a.m[string(key)] = append([]byte(nil), val...)
	a.mu.Unlock()
	return nil
}

func (a *faultyAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	idx := 0
	for _, c := range key[4:] {
		idx = idx*10 + int(c-'0')
	}
	if idx%7 == 0 {
		return dst, false, nil
	}
	if idx%11 == 0 {
		key = []byte("key_3")
	}
	a.mu.Lock()
	v, ok := a.m[string(key)]
	a.mu.Unlock()
	return append(dst, v...), ok, nil
}

func (a *faultyAdapter) Close() error { return nil }

func init() {
	engine.Register(engine.Factory{
		Name: "gcpause-test-faulty", Kind: engine.InMemory, TestOnly: true, Description: "loses and mixes up entries",
		New: func(engine.Options) (engine.Adapter, error) { return &faultyAdapter{m: map[string][]byte{}}, nil },
	})
	engine.Register(engine.Factory{
		Name: "gcpause-test-seterr", Kind: engine.InMemory, TestOnly: true, Description: "Set fails",
		New: func(engine.Options) (engine.Adapter, error) {
			return &faultyAdapter{m: map[string][]byte{}, setErr: true}, nil
		},
	})
}

func TestMeasureAdapterMap(t *testing.T) {
	const n = 5000
	var progress bytes.Buffer
	out, err := MeasureAdapter(context.Background(), ChildConfig{Adapter: "map", Params: Params{Entries: n, ValueSize: 100, GOGC: 10, Seed: 1, Verify: 1000, GCReads: 1000, GCReadTime: 10 * time.Second}}, &progress)
	if err != nil {
		t.Fatal(err)
	}
	p := out.GCPause
	if p.Adapter != "map" || p.Entries != n || p.ValueSize != 100 || p.GOGC != 10 || p.Error != "" {
		t.Fatalf("identity: %+v", p)
	}
	if p.Verified != 1000 || p.Missing != 0 || p.Wrong != 0 {
		t.Fatalf("verified %d missing %d wrong %d", p.Verified, p.Missing, p.Wrong)
	}
	// Each entry is a key string and a value slice on the heap; keys of
	// under 16 bytes can share a tiny-allocator block, so count at least
	// one object per entry.
	if p.HeapObjects < n {
		t.Fatalf("heap objects %d < %d entries", p.HeapObjects, n)
	}
	// Two forced collections, two stop-the-world pauses each.
	if p.PauseCount < 4 || p.PauseMaxSeconds <= 0 || p.PauseTotalSeconds < p.PauseMaxSeconds/2 {
		t.Fatalf("pauses: %d, max %v, total %v", p.PauseCount, p.PauseMaxSeconds, p.PauseTotalSeconds)
	}
	if p.FillSeconds <= 0 || p.ForcedGCSeconds <= 0 || p.ForcedGCCPUSecond <= 0 || p.HeapInUseBytes == 0 {
		t.Fatalf("times or heap missing: %+v", p)
	}
	for side, l := range map[string]report.Latency{"in GC": p.GetDuringGC, "outside GC": p.GetOutsideGC} {
		if l.P99 <= 0 || l.P999 < l.P99 || l.Max < l.P999 || l.P50 > l.P99 {
			t.Fatalf("latency %s: %+v", side, l)
		}
	}
	// The reads stop once both sides have the target, or on the time
	// bound, which 10 s at 5,000 entries cannot reach.
	r := p.GCReads
	if p.GetDuringGC.Samples < 1000 || p.GetOutsideGC.Samples < 1000 || r.TimeBound || r.Cycles < 1 || r.Target != 1000 || r.Seconds <= 0 {
		t.Fatalf("reads: in %d, outside %d, phase %+v", p.GetDuringGC.Samples, p.GetOutsideGC.Samples, r)
	}
	if p.BaselineHeapObjects == 0 || p.BaselineHeapObjects >= p.HeapObjects || p.BaselineHeapInUseBytes == 0 {
		t.Fatalf("baseline heap: %d objects of %d, %d bytes", p.BaselineHeapObjects, p.HeapObjects, p.BaselineHeapInUseBytes)
	}
	if _, err := os.Stat(ProcStatusPath); err == nil && (p.PeakRSSBytes == 0 || out.BaselineRSSBytes == 0 || p.PeakRSSBytes < out.RSSAfterGCBytes) {
		t.Fatalf("RSS: peak %d, baseline %d, after GC %d", p.PeakRSSBytes, out.BaselineRSSBytes, out.RSSAfterGCBytes)
	}
	if out.Config["type"] == "" {
		t.Fatalf("adapter config missing: %v", out.Config)
	}
	for _, phase := range []string{PhaseFill, PhaseForcedGC, PhaseVerify, PhaseGCReads} {
		if !strings.Contains(progress.String(), ProgressPrefix+" "+phase+" ") {
			t.Errorf("no %s progress line in %q", phase, progress.String())
		}
	}
}

func TestReadsStopAtTheTimeBound(t *testing.T) {
	cfg := ChildConfig{Adapter: "map", Params: Params{Entries: 1000, ValueSize: 16, GOGC: 100, GCReads: MaxGCReads, GCReadTime: 50 * time.Millisecond}}
	out, err := MeasureAdapter(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := out.GCPause.GCReads
	if !r.TimeBound || r.Cycles < 1 || out.GCPause.GetDuringGC.Samples >= MaxGCReads || r.Seconds > 5 {
		t.Fatalf("phase %+v with %d in-GC Gets; want the time bound to end it", r, out.GCPause.GetDuringGC.Samples)
	}
}

// seqAdapter is a map that moves the read phase's sequence (as the
// collecting goroutine does around runtime.GC) from inside its Get, so
// that which Gets count as inside is known exactly.
type seqAdapter struct {
	faultyAdapter
	c     *readCounters
	calls int
}

func (a *seqAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	a.calls++
	switch a.calls {
	case 100:
		a.c.seq.Store(2) // the collection ends during Get 100
	case 300:
		a.c.seq.Store(3) // the next one starts during Get 300
	case 400:
		a.c.stop.Store(true)
	}
	return dst, false, nil
}

func TestReadLoopSplitsGetsBySequence(t *testing.T) {
	var c readCounters
	c.seq.Store(1) // a collection runs when the reader starts
	a := &seqAdapter{c: &c}
	in, out := hdrhistogram.New(1, maxLatency, 3), hdrhistogram.New(1, maxLatency, 3)
	cfg := ChildConfig{Adapter: "seq", Params: Params{Entries: 10, ValueSize: 16}}
	if err := readLoop(a, cfg, readerKeySet(cfg), &c, in, out); err != nil {
		t.Fatal(err)
	}
	// Gets 1..100 overlapped the first collection, 101..299 nothing,
	// 300..stop the second; the reader stops at the next publication.
	if out.TotalCount() != 199 || in.TotalCount() != int64(a.calls)-199 || in.TotalCount() < 200 {
		t.Fatalf("in %d, outside %d of %d Gets; want outside 199", in.TotalCount(), out.TotalCount(), a.calls)
	}
}

// failingGetAdapter fails every Get after the first thousand.
type failingGetAdapter struct {
	faultyAdapter
	calls atomic.Int64
}

func (a *failingGetAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	if a.calls.Add(1) > 1000 {
		return dst, false, errors.New("disk on fire")
	}
	return dst, false, nil
}

func TestReadsEndOnAFailedGet(t *testing.T) {
	cfg := ChildConfig{Adapter: "failing", Params: Params{Entries: 100, ValueSize: 16, GCReads: MaxGCReads, GCReadTime: time.Minute}}
	start := time.Now()
	_, err := readsAcrossGC(context.Background(), &failingGetAdapter{}, cfg, time.Millisecond, &progressWriter{})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "during the GC reads") {
		t.Fatalf("err = %v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("a failed Get ended the reads only after %v", el)
	}
}

func TestMeasureAdapterFindsLostAndWrongEntries(t *testing.T) {
	const n = 700
	var log bytes.Buffer
	out, err := MeasureAdapter(context.Background(), ChildConfig{Adapter: "gcpause-test-faulty", Params: Params{Entries: n, ValueSize: 32, GOGC: 100, Verify: n, GCReads: 100, GCReadTime: time.Second}}, &log)
	if err != nil {
		t.Fatal(err)
	}
	p := out.GCPause
	// Every entry is checked when the sample covers them all.
	wantMissing := int64((n + 6) / 7)
	wantWrong := int64(0)
	for i := 0; i < n; i++ {
		if i%7 != 0 && i%11 == 0 {
			wantWrong++
		}
	}
	if p.Missing != wantMissing || p.Wrong != wantWrong || p.Verified != n-wantMissing-wantWrong {
		t.Fatalf("verified %d missing %d wrong %d; want missing %d wrong %d", p.Verified, p.Missing, p.Wrong, wantMissing, wantWrong)
	}
	if !strings.Contains(log.String(), "claims key index 3 (check ok: true)") {
		t.Fatalf("wrong value not described on the log: %q", log.String())
	}
}

func TestMeasureAdapterErrors(t *testing.T) {
	cfg := ChildConfig{Adapter: "gcpause-test-seterr", Params: Params{Entries: 100, ValueSize: 16, GOGC: 100, Verify: 10, GCReads: 100, GCReadTime: time.Second}}
	_, err := MeasureAdapter(context.Background(), cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "key_5") || !strings.Contains(err.Error(), "no room") {
		t.Fatalf("Set failure: %v", err)
	}
	cfg.Adapter = "nosuch"
	if _, err := MeasureAdapter(context.Background(), cfg, nil); !errors.Is(err, engine.ErrUnknownAdapter) {
		t.Fatalf("unknown adapter: %v", err)
	}
	cfg.Adapter, cfg.Entries = "map", 100_000
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MeasureAdapter(ctx, cfg, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled fill: %v", err)
	}
}
