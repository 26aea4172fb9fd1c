package adapters

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cachebench/cachebench/internal/engine"
)

// The map baselines of the read-vector workload (engine.Float64sStore):
// a vector kept in a Go map as text, parsed on every read, or as the
// []float64 itself. Both sit behind one sync.RWMutex, as the map adapter
// does, so that the two differ only in how the vector is held.
func init() {
	engine.Register(engine.Factory{
		Name:        "map-text",
		Kind:        engine.InMemory,
		Group:       vectorsGroup,
		Description: "Go map[string]string behind a sync.RWMutex; float vectors stored as text, parsed with strconv on every read; group vectors",
		New:         func(engine.Options) (engine.Adapter, error) { return &mapText{m: make(map[string]string)}, nil },
	})
	engine.Register(engine.Factory{
		Name:        "map-floats",
		Kind:        engine.InMemory,
		Group:       vectorsGroup,
		Description: "Go map[string][]float64 behind a sync.RWMutex; holds float vectors only; group vectors",
		New:         func(engine.Options) (engine.Adapter, error) { return &mapFloats{m: make(map[string][]float64)}, nil },
	})
}

// mapText is a map[string]string: bytes given to Set are kept as they
// are, vectors as their text form (vectortext.go).
type mapText struct {
	mu sync.RWMutex
	m  map[string]string
}

func (a *mapText) Name() string { return "map-text" }

// Set keeps val as a string (a copy).
func (a *mapText) Set(key, val []byte) error {
	v := string(val)
	a.mu.Lock()
	a.m[string(key)] = v
	a.mu.Unlock()
	return nil
}

// Get appends the stored string to dst.
func (a *mapText) Get(dst, key []byte) ([]byte, bool, error) {
	a.mu.RLock()
	v, ok := a.m[string(key)]
	a.mu.RUnlock()
	if ok {
		dst = append(dst, v...)
	}
	return dst, ok, nil
}

// SetFloat64s keeps the vector's text.
func (a *mapText) SetFloat64s(key []byte, xs []float64) error {
	v := string(appendFloatsText(nil, xs))
	a.mu.Lock()
	a.m[string(key)] = v
	a.mu.Unlock()
	return nil
}

// GetFloat64s parses the stored text into dst[:0]. Strings are immutable,
// so the parse runs outside the lock.
func (a *mapText) GetFloat64s(dst []float64, key []byte) ([]float64, bool, error) {
	a.mu.RLock()
	v, ok := a.m[string(key)]
	a.mu.RUnlock()
	if !ok {
		return dst[:0], false, nil
	}
	xs, err := parseFloatsText(dst[:0], v)
	if err != nil {
		return dst[:0], true, fmt.Errorf("map-text: get %q: %w", string(key), err)
	}
	return xs, true, nil
}

// Len implements engine.Lener.
func (a *mapText) Len() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return len(a.m)
}

// Config implements engine.Configurer.
func (a *mapText) Config() map[string]string {
	return map[string]string{
		"type":     "map[string]string",
		"lock":     "sync.RWMutex (one for the whole map)",
		"budget":   "none: unbounded, Options.Entries and MemoryBytes unused",
		"vectors":  "text (shortest round-trip floats, comma-separated); GetFloat64s parses it with strconv.ParseFloat on every read into the caller's buffer",
		"eviction": "none",
	}
}

// Close drops the map.
func (a *mapText) Close() error {
	a.mu.Lock()
	a.m = nil
	a.mu.Unlock()
	return nil
}

// mapFloats is a map[string][]float64. It holds vectors only: Set and
// Get of bytes are errors wrapping errors.ErrUnsupported.
type mapFloats struct {
	mu sync.RWMutex
	m  map[string][]float64
}

// errFloatsOnly is map-floats' answer to Set and Get of bytes.
var errFloatsOnly = fmt.Errorf("map-floats holds float64 vectors only (engine.Float64sStore): %w", errors.ErrUnsupported)

func (a *mapFloats) Name() string { return "map-floats" }

// Set fails: a map of float vectors has no place for bytes.
func (a *mapFloats) Set(key, val []byte) error { return errFloatsOnly }

// Get fails, as Set does.
func (a *mapFloats) Get(dst, key []byte) ([]byte, bool, error) { return dst, false, errFloatsOnly }

// SetFloat64s keeps a copy of xs. A stored slice is never written again
// (a later Set stores a new one), so GetFloat64s can hand it out.
func (a *mapFloats) SetFloat64s(key []byte, xs []float64) error {
	v := slices.Clone(xs)
	if v == nil {
		v = []float64{}
	}
	a.mu.Lock()
	a.m[string(key)] = v
	a.mu.Unlock()
	return nil
}

// GetFloat64s returns the stored slice itself (in place); dst is not
// used.
func (a *mapFloats) GetFloat64s(dst []float64, key []byte) ([]float64, bool, error) {
	a.mu.RLock()
	xs, ok := a.m[string(key)]
	a.mu.RUnlock()
	if !ok {
		return dst[:0], false, nil
	}
	return xs, true, nil
}

// Len implements engine.Lener.
func (a *mapFloats) Len() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return len(a.m)
}

// Config implements engine.Configurer.
func (a *mapFloats) Config() map[string]string {
	return map[string]string{
		"type":     "map[string][]float64",
		"lock":     "sync.RWMutex (one for the whole map)",
		"budget":   "none: unbounded, Options.Entries and MemoryBytes unused",
		"vectors":  "the []float64 itself (a copy made by SetFloat64s); GetFloat64s returns it: no copy, no parse",
		"set":      "bytes unsupported (errors.ErrUnsupported)",
		"eviction": "none",
	}
}

// Close drops the map.
func (a *mapFloats) Close() error {
	a.mu.Lock()
	a.m = nil
	a.mu.Unlock()
	return nil
}
