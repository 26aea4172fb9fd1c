package adapters

import (
	"errors"
	"fmt"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/workloads"
)

// NullName is the registry name of the harness-floor probe.
const NullName = "null"

// ProbeKind is the kind of adapters that measure the harness rather than a
// cache. No group ("memory", "file", "all") includes it.
const ProbeKind engine.Kind = "probe"

func init() {
	engine.Register(engine.Factory{
		Name:        NullName,
		Kind:        ProbeKind,
		Description: "probe: stores nothing, returns a well-formed value for every key; its figures are the harness floor",
		New:         newNull,
	})
}

// nullAdapter measures what the runner's own loop costs: Set stores
// nothing, and Get answers every well-formed key with a valid value of the
// workload codec (parsed from the key, never looked up), so the runner's
// verification passes and the loop runs exactly as it does for a cache.
// The value has the length of the default short values (ShortValueSize,
// 8 to 14 bytes), whatever the workload's value sizes: the floor is the
// harness's cost per operation, not the cost of copying a large value.
type nullAdapter struct {
	codec workloads.Codec
}

// errNullKey is returned for a key that is not of the workload format.
var errNullKey = errors.New("null: not a workload key (key_%d)")

func newNull(o engine.Options) (engine.Adapter, error) {
	return &nullAdapter{codec: workloads.NewCodec(o.Seed)}, nil
}

func (a *nullAdapter) Name() string { return NullName }

// Set stores nothing.
func (a *nullAdapter) Set(key, val []byte) error { return nil }

// Get appends the version-0 value of the key's index, of the default
// short length (ShortValueSize).
func (a *nullAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	dst, ok := a.codec.AppendValueOfKey(dst, key)
	if !ok {
		return dst, false, fmt.Errorf("%w: %q", errNullKey, truncKey(key))
	}
	return dst, true, nil
}

// Stats implements engine.Statser: it holds nothing.
func (a *nullAdapter) Stats() map[string]uint64 {
	return map[string]uint64{"entries": 0, "bytes": 0}
}

// Config implements engine.Configurer.
func (a *nullAdapter) Config() map[string]string {
	return map[string]string{
		"type":   "probe: no storage",
		"budget": "none: holds nothing",
		"get":    "parses the key index and appends the codec's short value for it (the length of val_%d, at least 8 bytes)",
		"seed":   fmt.Sprint(a.codec.Seed()),
	}
}

func (a *nullAdapter) Close() error { return nil }
