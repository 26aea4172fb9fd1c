package adapters

import (
	"sync"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "map",
		Kind:        engine.InMemory,
		Description: "Go map[string][]byte behind a sync.RWMutex (baseline; unbounded)",
		Unbounded:   true,
		New:         newMapAdapter,
	})
}

// mapAdapter is the baseline every cache is compared with: the built-in
// map guarded by one RWMutex. It is unbounded and gets no size hint (the
// suite gives size hints to all adapters or to none, and gives none), so
// the fill pays for the map's growth as a real application would.
type mapAdapter struct {
	mu sync.RWMutex
	m  map[string][]byte
}

func newMapAdapter(engine.Options) (engine.Adapter, error) {
	return &mapAdapter{m: make(map[string][]byte)}, nil
}

func (a *mapAdapter) Name() string { return "map" }

// Set copies both key and value: the caller may reuse its buffers.
func (a *mapAdapter) Set(key, val []byte) error {
	v := cloneBytes(val)
	a.mu.Lock()
	a.m[string(key)] = v
	a.mu.Unlock()
	return nil
}

// Get uses m[string(key)], which the compiler turns into a lookup that
// does not allocate, and appends the value to dst under the read lock.
func (a *mapAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	a.mu.RLock()
	v, ok := a.m[string(key)]
	if ok {
		dst = append(dst, v...)
	}
	a.mu.RUnlock()
	return dst, ok, nil
}

// Delete implements engine.Deleter.
func (a *mapAdapter) Delete(key []byte) (bool, error) {
	a.mu.Lock()
	_, ok := a.m[string(key)]
	delete(a.m, string(key))
	a.mu.Unlock()
	return ok, nil
}

// Len implements engine.Lener.
func (a *mapAdapter) Len() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return len(a.m)
}

// Config implements engine.Configurer.
func (a *mapAdapter) Config() map[string]string {
	return map[string]string{
		"type":      "map[string][]byte",
		"lock":      "sync.RWMutex (one for the whole map)",
		"budget":    "none: unbounded, Options.Entries and MemoryBytes unused",
		"size_hint": "none (make without capacity)",
		"set":       "copies key and value",
		"eviction":  "none",
	}
}

// Close drops the map so its memory can be collected.
func (a *mapAdapter) Close() error {
	a.mu.Lock()
	a.m = nil
	a.mu.Unlock()
	return nil
}
