package adapters

import (
	"fmt"

	"github.com/maypok86/otter/v2"
	"github.com/maypok86/otter/v2/stats"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "otter",
		Kind:        engine.InMemory,
		Description: "maypok86/otter v2: lock-free reads, adaptive W-TinyLFU, entry-bounded",
		New:         newOtterAdapter,
	})
}

// otterAdapter drives otter.Cache[string, []byte] bounded by
// Options.Entries (MaximumSize, every entry weighs 1).
//
// otter applies writes to its eviction policy asynchronously: a Set is
// visible to Get at once, but the entry count is brought back under
// MaximumSize by a maintenance task on another goroutine. Drain runs that
// maintenance synchronously (CleanUp) so that reads are measured against a
// cache that holds no more than its budget and has no pending work.
type otterAdapter struct {
	c       *otter.Cache[string, []byte]
	counter *stats.Counter
	entries int
}

func newOtterAdapter(o engine.Options) (engine.Adapter, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	counter := stats.NewCounter()
	c, err := otter.New(&otter.Options[string, []byte]{
		MaximumSize:   o.Entries,
		StatsRecorder: counter,
	})
	if err != nil {
		return nil, fmt.Errorf("otter: new (maximum size %d): %w", o.Entries, err)
	}
	return &otterAdapter{c: c, counter: counter, entries: o.Entries}, nil
}

func (a *otterAdapter) Name() string { return "otter" }

// Set stores a copied key and value.
func (a *otterAdapter) Set(key, val []byte) error {
	a.c.Set(string(key), cloneBytes(val))
	return nil
}

// Get looks up through unsafeString: GetIfPresent hashes and compares the
// key and never stores it (the node keeps the key given to Set).
func (a *otterAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	v, ok := a.c.GetIfPresent(unsafeString(key))
	if !ok {
		return dst, false, nil
	}
	return append(dst, v...), true, nil
}

// Delete implements engine.Deleter. The key is copied: Invalidate may hand
// it to deletion machinery, and deletes are not on the measured path.
func (a *otterAdapter) Delete(key []byte) (bool, error) {
	_, ok := a.c.Invalidate(string(key))
	return ok, nil
}

// Len implements engine.Lener with EstimatedSize (exact once drained).
func (a *otterAdapter) Len() int { return a.c.EstimatedSize() }

// Drain implements engine.Drainer.
func (a *otterAdapter) Drain() { a.c.CleanUp() }

// Stats implements engine.Statser.
func (a *otterAdapter) Stats() map[string]uint64 {
	s := a.c.Stats()
	return map[string]uint64{
		"hits":            s.Hits,
		"misses":          s.Misses,
		"evictions":       s.Evictions,
		"eviction_weight": s.EvictionWeight,
		"entries":         uint64(max(a.c.EstimatedSize(), 0)),
	}
}

// Config implements engine.Configurer.
func (a *otterAdapter) Config() map[string]string {
	return map[string]string{
		"budget":           "Options.Entries as MaximumSize (each entry weighs 1)",
		"maximum_size":     itoa(a.entries),
		"initial_capacity": "default (16): no size hint",
		"policy":           "adaptive W-TinyLFU (otter v2 default)",
		"stats":            "stats.Counter (striped atomic counters)",
		"executor":         "default (maintenance on its own goroutine); Drain runs CleanUp",
		"expiry":           "none",
		"set":              "copies key and value",
	}
}

// Close drops every entry and stops otter's goroutines.
func (a *otterAdapter) Close() error {
	a.c.InvalidateAll()
	a.c.StopAllGoroutines()
	return nil
}
