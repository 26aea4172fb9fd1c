package adapters

import (
	"sync"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "syncmap",
		Kind:        engine.InMemory,
		Description: "sync.Map with string keys and []byte values (unbounded)",
		Unbounded:   true,
		New:         newSyncMapAdapter,
	})
}

// syncMapAdapter drives the standard library's sync.Map. It is unbounded
// and has no size hint; its length is counted (Len).
type syncMapAdapter struct {
	m sync.Map
}

func newSyncMapAdapter(engine.Options) (engine.Adapter, error) {
	return &syncMapAdapter{}, nil
}

func (a *syncMapAdapter) Name() string { return "syncmap" }

// Set stores copies of key and value (the []byte in an interface costs
// sync.Map one more allocation per Store; that is its real cost).
func (a *syncMapAdapter) Set(key, val []byte) error {
	a.m.Store(string(key), cloneBytes(val))
	return nil
}

// Get looks the key up through unsafeString: Load only hashes and
// compares the key and never stores it, so the unsafe view is not
// retained, and string(key) would allocate once boxed in an interface.
func (a *syncMapAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	v, ok := a.m.Load(unsafeString(key))
	if !ok {
		return dst, false, nil
	}
	return append(dst, v.([]byte)...), true, nil
}

// Delete implements engine.Deleter.
func (a *syncMapAdapter) Delete(key []byte) (bool, error) {
	_, ok := a.m.LoadAndDelete(unsafeString(key))
	return ok, nil
}

// Len implements engine.Lener by counting with Range: O(entries), for the
// runner's occupancy read after a pass, never inside a timed loop.
func (a *syncMapAdapter) Len() int {
	n := 0
	a.m.Range(func(_, _ any) bool { n++; return true })
	return n
}

// Config implements engine.Configurer.
func (a *syncMapAdapter) Config() map[string]string {
	return map[string]string{
		"type":      "sync.Map (string key, []byte value)",
		"budget":    "none: unbounded, Options.Entries and MemoryBytes unused",
		"size_hint": "none (sync.Map takes none)",
		"set":       "copies key and value",
		"eviction":  "none",
	}
}

// Close drops every entry so the memory can be collected.
func (a *syncMapAdapter) Close() error {
	a.m.Clear()
	return nil
}
