package runner

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
)

// testMap is a correct adapter; wrongEvery makes it return another key's
// value once in wrongEvery lookups, and capacity makes it forget keys.
type testMap struct {
	mu         sync.RWMutex
	m          map[string][]byte
	wrongEvery int
	gets       int
	capacity   int
}

func (t *testMap) Name() string { return "test" }
func (t *testMap) Set(k, v []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.capacity > 0 && len(t.m) >= t.capacity {
		for old := range t.m { // evict an arbitrary key
			delete(t.m, old)
			break
		}
	}
	t.m[string(k)] = append([]byte(nil), v...)
	return nil
}
func (t *testMap) Get(dst, k []byte) ([]byte, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gets++
	v, ok := t.m[string(k)]
	if ok && t.wrongEvery > 0 && t.gets%t.wrongEvery == 0 {
		return append(dst, "not the value"...), true, nil
	}
	return append(dst, v...), ok, nil
}
func (t *testMap) Close() error { return nil }

func init() {
	engine.Register(engine.Factory{Name: "test-map", Kind: engine.InMemory, Description: "test only",
		New: func(o engine.Options) (engine.Adapter, error) { return &testMap{m: map[string][]byte{}}, nil }})
	engine.Register(engine.Factory{Name: "test-wrong", Kind: engine.InMemory, Description: "test only",
		New: func(o engine.Options) (engine.Adapter, error) {
			return &testMap{m: map[string][]byte{}, wrongEvery: 100}, nil
		}})
	engine.Register(engine.Factory{Name: "test-bounded", Kind: engine.InMemory, Description: "test only",
		New: func(o engine.Options) (engine.Adapter, error) {
			return &testMap{m: map[string][]byte{}, capacity: o.Entries}, nil
		}})
	engine.Register(engine.Factory{Name: "test-slow-new", Kind: engine.InMemory, Description: "test only",
		New: func(o engine.Options) (engine.Adapter, error) {
			time.Sleep(20 * time.Millisecond) // work done up front, as a cache that backs its memory in New
			return &testMap{m: map[string][]byte{}}, nil
		}})
	engine.Register(engine.Factory{Name: "test-broken", Kind: engine.InMemory, Description: "test only",
		New: func(o engine.Options) (engine.Adapter, error) { return nil, errors.New("server down at 127.0.0.1:1") }})
}

func gen(t *testing.T, name string) *workloads.Workload {
	t.Helper()
	s, err := workloads.DefaultSpec(name)
	if err != nil {
		t.Fatal(err)
	}
	s.Keys, s.Ops = 5000, 5000
	if s.ValueMax > 0 {
		s.ValueMin, s.ValueMax = 16, 64
	}
	w, err := workloads.Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func baseConfig(t *testing.T, adapters []string, names ...string) Config {
	cfg := Config{Adapters: adapters, Count: 3, Procs: []int{1, 2}, LatencyEvery: 8, Warmup: 0.1, ColdOps: 100}
	for _, n := range names {
		cfg.Workloads = append(cfg.Workloads, gen(t, n))
	}
	return cfg
}

func find(t *testing.T, res *report.Result, adapter, workload string, phase report.Phase, procs int) report.Measurement {
	t.Helper()
	for _, m := range res.Measurements {
		if m.Adapter == adapter && m.Workload == workload && m.Phase == phase && m.Procs == procs {
			return m
		}
	}
	t.Fatalf("no measurement %s %s %s procs=%d", adapter, workload, phase, procs)
	return report.Measurement{}
}

func TestRunMeasuresAndVerifies(t *testing.T) {
	cfg := baseConfig(t, []string{"test-map", "test-wrong"}, workloads.InsertLookup, "mixed/zipf")
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 2} {
		ins := find(t, res, "test-map", workloads.InsertLookup, report.PhaseInsert, procs)
		look := find(t, res, "test-map", workloads.InsertLookup, report.PhaseLookup, procs)
		if len(ins.Samples) != 3 || len(look.Samples) != 3 {
			t.Fatalf("want 3 samples, got %d and %d", len(ins.Samples), len(look.Samples))
		}
		for _, s := range look.Samples {
			if s.Ops != 5000 || s.Hits != 5000 || s.Wrong != 0 || s.HitRatio != 1 || s.NsPerOp <= 0 || s.Latency.Samples == 0 {
				t.Fatalf("lookup sample %+v", s)
			}
		}
		if look.Flags != nil {
			t.Fatalf("correct adapter flagged: %v", look.Flags)
		}
		bad := find(t, res, "test-wrong", workloads.InsertLookup, report.PhaseLookup, procs)
		if bad.Samples[0].Wrong == 0 || len(bad.Flags) == 0 || bad.Flags[0].Name != report.FlagWrongValues {
			t.Fatalf("wrong values not detected: %+v flags %v", bad.Samples[0], bad.Flags)
		}
		mixed := find(t, res, "test-map", "mixed/zipf", report.PhaseMixed, procs)
		if s := mixed.Samples[0]; s.Wrong != 0 || s.HitRatio != 1 || s.HotHitRatio != 1 {
			t.Fatalf("mixed sample %+v", s)
		}
	}
	if res.Adapters["test-map@insert-lookup"]["budget.entries"] != "5000" {
		t.Fatalf("adapter config not recorded: %v", res.Adapters)
	}
}

func TestGetOrSetHitRatios(t *testing.T) {
	cfg := baseConfig(t, []string{"test-bounded"}, "get-or-set/hotcold")
	cfg.Procs = []int{1}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := find(t, res, "test-bounded", "get-or-set/hotcold", report.PhaseGetOrSet, 1)
	s := m.Samples[0]
	// Capacity is 10% of the keys: the cache must miss, and random eviction
	// keeps hot keys (80% of accesses on 20% of keys) more often than cold.
	if !(s.HitRatio > 0 && s.HitRatio < 1) || s.HotHitRatio <= s.ColdHitRatio {
		t.Fatalf("hit ratios %+v", s)
	}
	if m.Flags != nil {
		t.Fatalf("get-or-set misses are not lost entries: %v", m.Flags)
	}
}

func TestBrokenAdapterDoesNotStopRun(t *testing.T) {
	cfg := baseConfig(t, []string{"test-broken", "test-map"}, workloads.InsertLookup)
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "127.0.0.1:1") || res.Errors[0].Code != report.FailNew {
		t.Fatalf("errors %v", res.Errors)
	}
	find(t, res, "test-map", workloads.InsertLookup, report.PhaseLookup, 1)
}

func TestCancelledRunKeepsMeasurements(t *testing.T) {
	cfg := baseConfig(t, []string{"test-map"}, workloads.InsertLookup)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	cfg.Progress = func(done, total int, desc string) {
		n++
		if n == 2 {
			cancel()
		}
	}
	res, err := Run(ctx, cfg)
	if !errors.Is(err, context.Canceled) || res == nil || !res.Interrupted {
		t.Fatalf("err %v interrupted %v", err, res != nil && res.Interrupted)
	}
	if len(res.Measurements) == 0 {
		t.Fatal("measurements taken before the cancel were dropped")
	}
	// The cancel came while the second repetition of test-map ran: that
	// run is interrupted, not failed.
	if len(res.Errors) != 0 || res.InterruptedDuring != "test-map: insert-lookup procs=1" {
		t.Fatalf("errors %v, interrupted during %q", res.Errors, res.InterruptedDuring)
	}
}

// testFrozen is a write-once store: writes only until Freeze.
type testFrozen struct{ testMap }

func (t *testFrozen) Freeze() error { return nil }

func TestWriteOnceStoreSkipsWritingWorkloads(t *testing.T) {
	engine.Register(engine.Factory{Name: "test-frozen", Kind: engine.InMemory, Description: "test only",
		New: func(o engine.Options) (engine.Adapter, error) {
			return &testFrozen{testMap{m: map[string][]byte{}}}, nil
		}})
	cfg := baseConfig(t, []string{"test-frozen", "test-map"}, workloads.InsertLookup, "mixed/hotcold", "get-or-set/zipf")
	cfg.Procs = []int{1}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 0 {
		t.Fatalf("skips reported as failures: %v", res.Errors)
	}
	if len(res.Skipped) != 2 || !strings.Contains(res.Skipped[0], "test-frozen: mixed/hotcold") ||
		!strings.Contains(res.Skipped[1], "test-frozen: get-or-set/zipf") {
		t.Fatalf("skipped %q", res.Skipped)
	}
	find(t, res, "test-frozen", workloads.InsertLookup, report.PhaseLookup, 1)
	find(t, res, "test-map", "mixed/hotcold", report.PhaseMixed, 1)
	find(t, res, "test-map", "get-or-set/zipf", report.PhaseGetOrSet, 1)
}

// The cold pass's mean comes from a pass timed like every other, its
// latency percentiles from a second cold pass that times every lookup:
// the few page faults that carry a cold pass's time are too rare for one
// sample in LatencyEvery to reach.
func TestColdPassTimesEveryLookup(t *testing.T) {
	cfg := baseConfig(t, []string{"mmapstore"}, workloads.InsertLookup)
	cfg.Procs, cfg.Count, cfg.Dir = []int{1}, 1, t.TempDir()
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) > 0 {
		t.Skipf("cold pass not supported here: %v", res.Skipped)
	}
	cold := find(t, res, "mmapstore", workloads.InsertLookup, report.PhaseLookupCold, 1)
	warm := find(t, res, "mmapstore", workloads.InsertLookup, report.PhaseLookup, 1)
	if s := cold.Samples[0]; s.Ops != int64(cfg.ColdOps) || s.Latency.Samples != int64(cfg.ColdOps) || s.Hits != s.Ops {
		t.Fatalf("cold pass: %d ops, %d latency samples, %d hits; want %d each", s.Ops, s.Latency.Samples, s.Hits, cfg.ColdOps)
	}
	if s := warm.Samples[0]; s.Latency.Samples >= s.Ops {
		t.Fatalf("warm pass: %d latency samples of %d ops: the sampling rate leaked from the cold pass", s.Latency.Samples, s.Ops)
	}
}

// A workload's own sampling interval (get-or-set/umem times every
// request) wins over the run's.
func TestWorkloadLatencyEvery(t *testing.T) {
	cfg := baseConfig(t, []string{"test-map"}, "get-or-set/zipf", "get-or-set/hotcold")
	cfg.Procs, cfg.Count, cfg.LatencyEvery = []int{1}, 1, 64
	cfg.Workloads[0].Spec.LatencyEvery = 1
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s := find(t, res, "test-map", "get-or-set/zipf", report.PhaseGetOrSet, 1).Samples[0]; s.Latency.Samples != s.Ops {
		t.Errorf("get-or-set/zipf with LatencyEvery 1: %d latency samples of %d requests", s.Latency.Samples, s.Ops)
	}
	if s := find(t, res, "test-map", "get-or-set/hotcold", report.PhaseGetOrSet, 1).Samples[0]; s.Latency.Samples*32 > s.Ops {
		t.Errorf("get-or-set/hotcold at the run's 64: %d latency samples of %d requests", s.Latency.Samples, s.Ops)
	}
}

// The constructor's time is recorded on the insert pass (a sleep gives
// it a floor), and the tables name a constructor that took a millisecond
// or more.
func TestInsertRecordsNewTime(t *testing.T) {
	cfg := baseConfig(t, []string{"test-map", "test-slow-new"}, workloads.InsertLookup)
	cfg.Count, cfg.Procs = 2, []int{1}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range find(t, res, "test-slow-new", workloads.InsertLookup, report.PhaseInsert, 1).Samples {
		if s.NewNs < 20e6 {
			t.Fatalf("slow constructor recorded as %.0f ns", s.NewNs)
		}
	}
	for _, s := range find(t, res, "test-map", workloads.InsertLookup, report.PhaseInsert, 1).Samples {
		if s.NewNs <= 0 {
			t.Fatalf("map constructor not recorded: %.0f ns", s.NewNs)
		}
	}
	var buf strings.Builder
	if err := report.WriteMarkdown(&buf, res); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "New, before the insert pass and not in its figures: ") ||
		!strings.Contains(out, "test-slow-new ") {
		t.Fatalf("no note of the slow constructor:\n%s", out)
	}
}
