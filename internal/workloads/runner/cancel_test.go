package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/workloads"
)

// slowMap is a testMap whose every operation takes at least 1 ms: a pass
// over 5,000 keys takes 5 s, far longer than a Ctrl-C may wait, and than
// the bound below, which leaves room for a loaded machine.
type slowMap struct{ *testMap }

func (s slowMap) Get(dst, key []byte) ([]byte, bool, error) {
	time.Sleep(time.Millisecond)
	return s.testMap.Get(dst, key)
}

func (s slowMap) Set(key, val []byte) error {
	time.Sleep(time.Millisecond)
	return s.testMap.Set(key, val)
}

func init() {
	engine.Register(engine.Factory{Name: "test-slow", Kind: engine.InMemory, TestOnly: true, Description: "test only",
		New: func(engine.Options) (engine.Adapter, error) { return slowMap{&testMap{m: map[string][]byte{}}}, nil }})
}

// TestCancelStopsPassInFlight: Ctrl-C during a pass stops it on the next
// sampled operation, and the run returns the interrupted result at once.
func TestCancelStopsPassInFlight(t *testing.T) {
	for _, wl := range []string{workloads.InsertLookup, "get-or-set/zipf", "mixed/uniform"} {
		cfg := baseConfig(t, []string{"test-slow"}, wl)
		cfg.Count, cfg.Procs = 1, []int{1}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		res, err := Run(ctx, cfg)
		el := time.Since(start)
		if !errors.Is(err, context.Canceled) || res == nil || !res.Interrupted {
			t.Fatalf("%s: err %v, result %v", wl, err, res)
		}
		if el > 2*time.Second {
			t.Errorf("%s: Run returned %v after the start, 100 ms after it was cancelled at best", wl, el)
		}
		if len(res.Measurements) != 0 {
			t.Errorf("%s: a cut pass was recorded: %+v", wl, res.Measurements)
		}
	}
}
