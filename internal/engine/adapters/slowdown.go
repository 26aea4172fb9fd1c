//go:build slowdown

package adapters

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
)

// The map-slow adapter exists to test cachebench's regression gate
// (`cachebench compare`, scripts/gate-experiment.sh) on real runs, in a
// binary built with -tags slowdown (the default binary leaves it out): it is
// the map adapter plus a known, injected cost per operation, so that the
// gate can be shown to catch a slowdown or an extra allocation of known
// size and to stay quiet when none is injected. Groups ("memory", "all")
// never include it: it must be named.
//
// Environment, read when an adapter is constructed:
//
//	CACHEBENCH_SLOWDOWN_NS      extra CPU work per Get and Set, in ns (default 0)
//	CACHEBENCH_SLOWDOWN_ALLOCS  extra heap allocations per Get and Set (default 0)
//	CACHEBENCH_SLOWDOWN_PERCENT extra lookups, in percent of Gets (default 0)
//
// CPU work is a poor model of a slower cache: between memory-bound
// lookups, a few ns of spin keep the CPU from overlapping one lookup's
// misses with the next one's and cost far more than their own time, so a
// spin sized for "25% slower" gave slowdowns scattered far on both sides
// of the aim. Extra
// lookups are memory work like the lookups themselves: with
// CACHEBENCH_SLOWDOWN_PERCENT=p, p% of the keys (picked by a hash of the
// key) are also set in, and looked up in, a second map, so the extra work
// grows with p: inserts cost about p% more, and every Get of a picked key
// makes a second lookup whose lines are as warm as the first's. (A second
// map given every key made lookups much slower even with few keys
// picked: its allocations, interleaved with the first map's, spread the
// first map's keys and values over twice the memory.) An extra lookup
// still need not cost what an average one does, so the p for a given
// slowdown is measured, not assumed (scripts/gate-experiment.sh
// calibrates it).
const (
	envSlowdownNs      = "CACHEBENCH_SLOWDOWN_NS"
	envSlowdownAllocs  = "CACHEBENCH_SLOWDOWN_ALLOCS"
	envSlowdownPercent = "CACHEBENCH_SLOWDOWN_PERCENT"
	// maxSlowdownNs bounds the injected work: a typo must not make a
	// run take hours.
	maxSlowdownNs     = 1_000_000
	maxSlowdownAllocs = 1000
)

func init() {
	engine.Register(engine.Factory{
		Name:        "map-slow",
		Kind:        engine.InMemory,
		TestOnly:    true,
		Description: "test only: the map adapter plus " + envSlowdownNs + " ns of CPU work and " + envSlowdownAllocs + " allocations per op",
		New:         newSlowMap,
	})
}

// slowMap wraps the registered map adapter.
type slowMap struct {
	inner  engine.Adapter
	iters  int // spin iterations per op
	allocs int
	ns     float64
	// twin, with percent > 0: a second map given the Sets and Gets of
	// the keys picked (see picked).
	twin    engine.Adapter
	percent int
}

func newSlowMap(o engine.Options) (engine.Adapter, error) {
	ns, err := envInt(envSlowdownNs, maxSlowdownNs)
	if err != nil {
		return nil, err
	}
	allocs, err := envInt(envSlowdownAllocs, maxSlowdownAllocs)
	if err != nil {
		return nil, err
	}
	percent, err := envInt(envSlowdownPercent, 100)
	if err != nil {
		return nil, err
	}
	f, err := engine.Lookup("map")
	if err != nil {
		return nil, fmt.Errorf("map-slow: %w", err)
	}
	inner, err := f.New(o)
	if err != nil {
		return nil, fmt.Errorf("map-slow: %w", err)
	}
	a := &slowMap{inner: inner, allocs: allocs, ns: float64(ns), percent: percent}
	if ns > 0 {
		a.iters = int(float64(ns)/spinNsPerIter() + 0.5)
	}
	if percent > 0 {
		if a.twin, err = f.New(o); err != nil {
			inner.Close()
			return nil, fmt.Errorf("map-slow: second map: %w", err)
		}
	}
	return a, nil
}

func envInt(name string, limit int) (int, error) {
	s := os.Getenv(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > limit {
		return 0, fmt.Errorf("map-slow: %s=%q: want an integer in 0..%d", name, s, limit)
	}
	return n, nil
}

var (
	spinOnce sync.Once
	spinCost float64
	// spinSink keeps the spin loop's result alive so the compiler cannot
	// remove the loop.
	spinSink atomic.Uint64
	// allocSink makes the injected allocations escape to the heap.
	allocSink atomic.Pointer[[16]byte]
)

// spinNsPerIter calibrates the spin loop once per process. It keeps the
// fastest of several timings: on a busy machine the slower ones measure
// the other processes, and the injected work must be a fixed amount of
// CPU work (as a real code change would be), not a fixed wall time.
func spinNsPerIter() float64 {
	spinOnce.Do(func() {
		const n = 1 << 20
		best := time.Duration(1<<63 - 1)
		for range 7 {
			start := time.Now()
			spinSink.Add(spin(n, 1))
			if d := time.Since(start); d < best {
				best = d
			}
		}
		spinCost = max(float64(best)/n, 0.01)
	})
	return spinCost
}

// spin runs n dependent xorshift steps: one chain, so the CPU cannot
// overlap iterations and the cost per step is stable.
func spin(n int, x uint64) uint64 {
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// slow injects the configured cost.
func (a *slowMap) slow() {
	if a.iters > 0 {
		if spin(a.iters, uint64(a.iters)|1) == 0 {
			// Never true (xorshift of a non-zero state stays non-zero),
			// but the compiler cannot know, so the loop stays.
			spinSink.Add(1)
		}
	}
	for range a.allocs {
		allocSink.Store(new([16]byte))
	}
}

func (a *slowMap) Name() string { return "map-slow" }

func (a *slowMap) Set(key, val []byte) error {
	a.slow()
	if a.twin != nil && a.picked(key) {
		if err := a.twin.Set(key, val); err != nil {
			return fmt.Errorf("map-slow: second map: %w", err)
		}
	}
	return a.inner.Set(key, val)
}

func (a *slowMap) Get(dst, key []byte) ([]byte, bool, error) {
	a.slow()
	if a.twin != nil && a.picked(key) {
		// Into dst's spare room, then dropped: no buffer of its own to
		// allocate or share between goroutines.
		d, _, err := a.twin.Get(dst, key)
		if err != nil {
			return dst, false, fmt.Errorf("map-slow: second map: %w", err)
		}
		dst = d[:len(dst)]
	}
	return a.inner.Get(dst, key)
}

// picked says whether key's Gets make the extra lookup: percent of keys,
// chosen by a multiplicative hash of the key's last eight bytes (no state
// shared between goroutines, so picking costs no atomic operation).
func (a *slowMap) picked(key []byte) bool {
	var x uint64
	for _, c := range key[max(0, len(key)-8):] {
		x = x<<8 | uint64(c)
	}
	return (x*0x9e3779b97f4a7c15)>>32%100 < uint64(a.percent)
}

func (a *slowMap) Close() error {
	if a.twin != nil {
		a.twin.Close()
	}
	return a.inner.Close()
}

// Len implements engine.Lener when the wrapped map does.
func (a *slowMap) Len() int {
	if l, ok := a.inner.(engine.Lener); ok {
		return l.Len()
	}
	return -1
}

// Config implements engine.Configurer: the map's configuration plus the
// injected cost.
func (a *slowMap) Config() map[string]string {
	out := map[string]string{}
	if c, ok := a.inner.(engine.Configurer); ok {
		for k, v := range c.Config() {
			out[k] = v
		}
	}
	out["wraps"] = "map"
	out["slowdown_ns"] = strconv.FormatFloat(a.ns, 'f', -1, 64)
	out["slowdown_spin_iterations"] = strconv.Itoa(a.iters)
	out["slowdown_allocs"] = strconv.Itoa(a.allocs)
	out["slowdown_extra_lookup_percent"] = strconv.Itoa(a.percent)
	return out
}
