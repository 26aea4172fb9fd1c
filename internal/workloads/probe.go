package workloads

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/cachebench/cachebench/internal/engine"
)

// The probe registers itself: importing workloads (as every driver does)
// makes it available under engine.ProbeName.
func init() {
	engine.Register(engine.Factory{
		Name:        engine.ProbeName,
		Kind:        engine.Probe,
		Description: "probe: stores nothing, returns a well-formed value for every key; its figures are the harness floor",
		New: func(o engine.Options) (engine.Adapter, error) {
			return NewProbe(o.Seed), nil
		},
	})
}

// Probe is the harness-floor probe (registered as engine.ProbeName): it
// stores nothing, and Get answers every key with the codec's version-0
// short value for it, computed from the key's bytes and never looked up,
// so the runner's verification passes and its loop runs exactly as it
// does for a cache. The value has the length of the default short values
// (ShortValueSize, 8 to 14 bytes) whatever the workload's value sizes: the
// floor is the harness's cost per operation, not the cost of copying a
// large value.
//
// It lives beside the codec, not with the adapters, because its Get is the
// codec's value layout written out in one function: every call level or
// instruction it spends is counted in the harness floor of every run.
type Probe struct {
	codec Codec
}

// ErrProbeKey is returned for a key that cannot be a workload key.
var ErrProbeKey = errors.New("null: not a workload key (key_%d)")

// NewProbe returns the probe answering with the values of seed's codec.
func NewProbe(seed uint64) *Probe { return &Probe{codec: NewCodec(seed)} }

// Name is the probe's adapter name.
func (p *Probe) Name() string { return engine.ProbeName }

// Set stores nothing.
func (p *Probe) Set(key, val []byte) error { return nil }

// Get appends the version-0 value of key of the default short length
// (the key's own length, at least MinValueSize): for a workload key,
// exactly what AppendValue writes for its index; for any other key of at
// most 15 bytes, a value Check accepts for it. A longer key cannot be a
// workload key (its value would carry the index in its body): an error.
func (p *Probe) Get(dst, key []byte) ([]byte, bool, error) {
	k, l := len(key), len(dst)
	if k < 8 || k >= diagValueSize || cap(dst)-l < k {
		return p.getSlow(dst, key)
	}
	// The path of every workload key of 8 to 15 bytes into a buffer with
	// room: no call, so Go keeps it free of spills (a call costs a third
	// of the floor). Tag's short path, written out.
	a, b := binary.LittleEndian.Uint64(key), binary.LittleEndian.Uint64(key[k-8:])
	h := fold(a^p.codec.key, b^tagIdx^uint64(k)*tagLen)
	dst = dst[:l+k]
	putShort(dst[l:], uint32(h)^uint32(h>>32))
	return dst, true, nil
}

// getSlow is Get for keys under 8 bytes, keys too long to be workload
// keys, and buffers without room.
func (p *Probe) getSlow(dst, key []byte) ([]byte, bool, error) {
	k := len(key)
	n := max(k, MinValueSize)
	if n >= diagValueSize {
		return dst, false, fmt.Errorf("%w: %d bytes", ErrProbeKey, k)
	}
	l := len(dst)
	dst = slices.Grow(dst, n)[:l+n]
	putShort(dst[l:], p.codec.Tag(key, 0))
	return dst, true, nil
}

// putShort writes the version-0 value of tag t into v, 8 to 15 bytes:
// the head, the filler words at 4 and (n > 12) at 8, the tail, written
// last over what of them lies past n-4; as PutValue writes them. Only
// len(v) bytes are written, so a buffer sized for the workload's values
// never grows.
func putShort(v []byte, t uint32) {
	n := len(v)
	if n < MinValueSize || n >= diagValueSize {
		return
	}
	binary.LittleEndian.PutUint32(v, t)
	binary.LittleEndian.PutUint32(v[4:], t^(4*0x01010101+0x03020100))
	if n > 12 {
		binary.LittleEndian.PutUint32(v[8:], t^(8*0x01010101+0x03020100))
	}
	binary.LittleEndian.PutUint32(v[n-4:], ^(t ^ uint32(n)))
}

// SetFloat64s stores nothing.
func (p *Probe) SetFloat64s(key []byte, xs []float64) error { return nil }

// GetFloat64s writes the read-vector vector of a workload key into
// dst[:0], from the key's index (vector.go): the harness floor of
// read-vector is its loop plus the cheapest store that hands over a
// fresh vector. Any other key is an error.
func (p *Probe) GetFloat64s(dst []float64, key []byte) ([]float64, bool, error) {
	i, ok := ParseKey(key)
	if !ok {
		return dst[:0], false, fmt.Errorf("%w: %q", ErrProbeKey, key)
	}
	dst = dst[:0]
	for j := range VectorLen {
		dst = append(dst, VectorElem(uint32(i), j))
	}
	return dst, true, nil
}

// Close does nothing.
func (p *Probe) Close() error { return nil }

// Stats reports that the probe holds nothing.
func (p *Probe) Stats() map[string]uint64 {
	return map[string]uint64{"entries": 0, "bytes": 0}
}

// Config describes the probe.
func (p *Probe) Config() map[string]string {
	return map[string]string{
		"type":    "probe: no storage",
		"budget":  "none: holds nothing",
		"get":     "appends the codec's short value for the key, tagged from its bytes (the length of val_%d, at least 8 bytes)",
		"vectors": "GetFloat64s writes the key's read-vector vector into dst, from the key's index",
		"seed":    strconv.FormatUint(p.codec.Seed(), 10),
	}
}
