package adapters

import (
	"fmt"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/engine/mmapstore"
)

// Two variants of the mmapstore adapter for the read-vector workload
// (engine.Float64sStore), the same store and file format with a vector
// kept two ways. Both are the mmapstore adapter for bytes (Set, Get,
// GetBatch, Freeze, Reopen), so the only difference the workload measures
// is the representation of the vector.
func init() {
	engine.Register(engine.Factory{
		Name:        "mmapstore-floats",
		Kind:        engine.FileStore,
		Group:       vectorsGroup,
		Description: "mmapstore with float vectors as typed []float64 records, read in place (no copy, no parse); group vectors",
		New: func(o engine.Options) (engine.Adapter, error) {
			a, err := newMmapstore("mmapstore-floats", o)
			if err != nil {
				return nil, err
			}
			return &mmapstoreFloats{a}, nil
		},
	})
	engine.Register(engine.Factory{
		Name:        "mmapstore-text",
		Kind:        engine.FileStore,
		Group:       vectorsGroup,
		Description: "mmapstore with float vectors stored as text, parsed with strconv on every read; group vectors",
		New: func(o engine.Options) (engine.Adapter, error) {
			a, err := newMmapstore("mmapstore-text", o)
			if err != nil {
				return nil, err
			}
			return &mmapstoreText{mmapstoreAdapter: a}, nil
		},
	})
}

// mmapstoreFloats keeps a vector as a mmapstore.TypeFloat64s record:
// little-endian float64s, 8-aligned in the file, which GetFloat64s
// returns as a slice over the mapping.
type mmapstoreFloats struct{ *mmapstoreAdapter }

// SetFloat64s adds a typed record to the file being built.
func (a *mmapstoreFloats) SetFloat64s(key []byte, xs []float64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.writable("set"); err != nil {
		return err
	}
	return a.b.AddValue(key, mmapstore.Float64sValue(xs))
}

// GetFloat64s returns the vector in place: a read-only slice over the
// mapping, valid until Close or Reopen; dst is not used. A value of
// another type (bytes given to Set) is a mmapstore.ErrType error.
func (a *mmapstoreFloats) GetFloat64s(dst []float64, key []byte) ([]float64, bool, error) {
	s := a.s
	if s == nil {
		return dst[:0], false, a.readStateErr("get")
	}
	return s.GetFloat64s(key)
}

// Config adds how vectors are held to the store's settings.
func (a *mmapstoreFloats) Config() map[string]string {
	c := a.mmapstoreAdapter.Config()
	c["vectors"] = "typed []float64 records (mmapstore.TypeFloat64s, 8-aligned); GetFloat64s returns a slice over the mapping: no copy, no parse, no allocation"
	return c
}

// mmapstoreText keeps a vector as the bytes of its text form
// (vectortext.go), a plain TypeBytes record, and parses them on every
// GetFloat64s.
type mmapstoreText struct {
	*mmapstoreAdapter
	text []byte // SetFloat64s's buffer, under mu
}

// SetFloat64s adds the vector's text to the file being built.
func (a *mmapstoreText) SetFloat64s(key []byte, xs []float64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.writable("set"); err != nil {
		return err
	}
	a.text = appendFloatsText(a.text[:0], xs)
	return a.b.Add(key, a.text) // Add copies
}

// GetFloat64s parses the stored text, read zero-copy from the mapping,
// into dst[:0].
func (a *mmapstoreText) GetFloat64s(dst []float64, key []byte) ([]float64, bool, error) {
	s := a.s
	if s == nil {
		return dst[:0], false, a.readStateErr("get")
	}
	v, ok := s.Get(key)
	if !ok {
		return dst[:0], false, nil
	}
	// unsafeString: the parser keeps nothing of the text (it copies an
	// element into its error), and the mapping outlives the call.
	xs, err := parseFloatsText(dst[:0], unsafeString(v))
	if err != nil {
		return dst[:0], true, fmt.Errorf("%s: get %q from %s: %w", a.name, string(key), a.path, err)
	}
	return xs, true, nil
}

// Config adds how vectors are held to the store's settings.
func (a *mmapstoreText) Config() map[string]string {
	c := a.mmapstoreAdapter.Config()
	c["vectors"] = "text (shortest round-trip floats, comma-separated) in a bytes record; GetFloat64s parses it with strconv.ParseFloat on every read, zero-copy from the mapping, into the caller's buffer"
	return c
}
