package runner

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
)

// sleepyMap is testMap with a pause in every Get, a Footprint, and a
// record of the network options it was built with.
type sleepyMap struct {
	testMap
	opts engine.Options
}

func (s *sleepyMap) Get(dst, k []byte) ([]byte, bool, error) {
	time.Sleep(20 * time.Microsecond)
	return s.testMap.Get(dst, k)
}

func (s *sleepyMap) Footprint() (engine.Footprint, error) {
	return engine.Footprint{HeldBytes: 600, LimitBytes: 1000, RSSBytes: 1250}, nil
}

var sleepyBuilt struct {
	sync.Mutex
	opts []engine.Options
}

func init() {
	engine.Register(engine.Factory{Name: "test-sleepy", Kind: engine.InMemory, Description: "test only", TestOnly: true,
		New: func(o engine.Options) (engine.Adapter, error) {
			sleepyBuilt.Lock()
			sleepyBuilt.opts = append(sleepyBuilt.opts, o)
			sleepyBuilt.Unlock()
			return &sleepyMap{testMap: testMap{m: map[string][]byte{}, capacity: o.Entries}, opts: o}, nil
		}})
}

// TestDurationBoundAndFootprint: --duration stops a get-or-set pass early
// and counts the operations run; the footprint is recorded; the network
// options reach the adapter with Workers set to the pass's procs.
func TestDurationBoundAndFootprint(t *testing.T) {
	cfg := baseConfig(t, []string{"test-sleepy"}, "get-or-set/hotcold")
	cfg.Count, cfg.Procs = 1, []int{2}
	cfg.Duration = 20 * time.Millisecond
	cfg.Network = engine.NetworkOptions{RedisAddr: "example:6379", Pipeline: 8}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := find(t, res, "test-sleepy", "get-or-set/hotcold", report.PhaseGetOrSet, 2)
	s := m.Samples[0]
	// 5,000 ops of at least 20 µs on 2 workers take 50 ms or more.
	if s.Ops <= 0 || s.Ops >= 5000 {
		t.Errorf("ops %d with a 20 ms bound; want fewer than the 5,000 planned", s.Ops)
	}
	if s.Hits+s.Misses != s.Ops {
		t.Errorf("hits %d + misses %d != ops %d", s.Hits, s.Misses, s.Ops)
	}
	if s.HeldBytes != 600 || s.LimitBytes != 1000 || s.RSSBytes != 1250 {
		t.Errorf("footprint not recorded: %+v", s)
	}
	sleepyBuilt.Lock()
	defer sleepyBuilt.Unlock()
	for _, o := range sleepyBuilt.opts {
		if o.Network.Workers != 2 || o.Network.RedisAddr != "example:6379" || o.Network.Pipeline != 8 {
			t.Errorf("network options at New: %+v", o.Network)
		}
	}
}

// inFlight is testMap that records how many Gets run at once.
type inFlight struct {
	testMap
	now, peak atomic.Int64
}

func (f *inFlight) Get(dst, k []byte) ([]byte, bool, error) {
	n := f.now.Add(1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(50 * time.Microsecond)
	f.now.Add(-1)
	return f.testMap.Get(dst, k)
}

var lastInFlight atomic.Pointer[inFlight]

func init() {
	engine.Register(engine.Factory{Name: "test-net-inflight", Kind: engine.Network, Description: "test only", TestOnly: true,
		New: func(o engine.Options) (engine.Adapter, error) {
			a := &inFlight{testMap: testMap{m: map[string][]byte{}, capacity: o.Entries}}
			lastInFlight.Store(a)
			return a, nil
		}})
}

// TestConnsPerWorker: a network adapter is driven by procs ×
// ConnsPerWorker goroutines, each with one request in flight.
func TestConnsPerWorker(t *testing.T) {
	cfg := baseConfig(t, []string{"test-net-inflight"}, "get-or-set/hotcold")
	cfg.Count, cfg.Procs = 1, []int{1}
	cfg.Network.ConnsPerWorker = 3
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if p := lastInFlight.Load().peak.Load(); p != 3 {
		t.Errorf("peak Gets in flight = %d with 1 proc × 3 conns, want 3", p)
	}
}
