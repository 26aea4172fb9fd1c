package runner

import (
	"container/list"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// exactLRU is a textbook LRU cache of Options.Entries entries.
type exactLRU struct {
	mu  sync.Mutex
	cap int
	ll  *list.List
	m   map[string]*list.Element
}

type lruEntry struct {
	key string
	val []byte
}

func (c *exactLRU) Name() string { return "test-exact-lru" }
func (c *exactLRU) Close() error { return nil }
func (c *exactLRU) Get(dst, k []byte) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[string(k)]
	if !ok {
		return dst, false, nil
	}
	c.ll.MoveToFront(e)
	return append(dst, e.Value.(*lruEntry).val...), true, nil
}
func (c *exactLRU) Set(k, v []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[string(k)]; ok {
		e.Value.(*lruEntry).val = append([]byte(nil), v...)
		c.ll.MoveToFront(e)
		return nil
	}
	if c.ll.Len() == c.cap {
		old := c.ll.Remove(c.ll.Back()).(*lruEntry)
		delete(c.m, old.key)
	}
	c.m[string(k)] = c.ll.PushFront(&lruEntry{string(k), append([]byte(nil), v...)})
	return nil
}

func init() {
	engine.Register(engine.Factory{Name: "test-exact-lru", Kind: engine.InMemory, TestOnly: true,
		Description: "test: an exact LRU of the entry budget",
		New: func(o engine.Options) (engine.Adapter, error) {
			return &exactLRU{cap: o.Entries, ll: list.New(), m: map[string]*list.Element{}}, nil
		}})
}

// writeLIRS writes a skewed LIRS trace over objects blocks (each requested
// at least once) and returns its path.
func writeLIRS(t *testing.T, objects, requests int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	for i := range rng.Perm(objects) {
		fmt.Fprintf(&b, "%d\n", 1000+i*7)
	}
	for i := objects; i < requests; i++ {
		id := min(int(float64(objects)*rng.Float64()*rng.Float64()), objects-1)
		fmt.Fprintf(&b, "%d\n*\n", 1000+id*7)
	}
	p := filepath.Join(t.TempDir(), "t.lirs")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A trace replayed through the runner's get-or-set loop on one worker
// gives an exact LRU exactly the hits the trace's LRU stack distances
// predict, every value checked.
func TestTraceWorkloadMatchesExactLRU(t *testing.T) {
	p := writeLIRS(t, 1000, 20000)
	f, err := trace.Open(p, trace.LIRS)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := trace.ComputeStats(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	specs, err := workloads.Specs("trace:lirs:"+p, workloads.Params{Seed: 1, Capacity: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	w, err := workloads.Generate(specs[0])
	if err != nil {
		t.Fatal(err)
	}
	if w.Spec.Keys != 1000 || w.Spec.Ops != 20000 || w.Budget().Entries != 50 || stats.LRUCapacities[2] != 50 {
		t.Fatalf("keys %d ops %d entries %d, stats capacity %d", w.Spec.Keys, w.Spec.Ops, w.Budget().Entries, stats.LRUCapacities[2])
	}
	for _, procs := range []int{1, 2} {
		res, err := Run(context.Background(), Config{Adapters: []string{"test-exact-lru"}, Workloads: []*workloads.Workload{w},
			Count: 1, Procs: []int{procs}, LatencyEvery: 64, Floor: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range res.Measurements {
			if m.Phase != report.PhaseGetOrSet || m.Workload != "trace:t.lirs" {
				t.Fatalf("measurement %s %s", m.Workload, m.Phase)
			}
			s := m.Samples[0]
			if s.Ops != 20000 || s.Wrong != 0 || s.Errors != 0 {
				t.Fatalf("%s procs %d: %+v", m.Adapter, procs, s)
			}
			if m.Adapter == "test-exact-lru" && procs == 1 && s.Hits != stats.LRUHits[2] {
				t.Errorf("exact LRU: %d hits through the runner, %d from the trace's stack distances", s.Hits, stats.LRUHits[2])
			}
			if m.Adapter == "test-exact-lru" && procs == 2 && !strings.Contains(m.Note, "2 contiguous parts") {
				t.Errorf("note %q", m.Note)
			}
		}
	}
}
