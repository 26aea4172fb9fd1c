package adapters

import (
	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/workloads"
)

// NullName is the registry name of the harness-floor probe.
const NullName = "null"

// ProbeKind is the kind of adapters that measure the harness rather than a
// cache. No group ("memory", "file", "all") includes it.
const ProbeKind engine.Kind = "probe"

// The probe itself is workloads.Probe: its Get is the codec's value layout
// written out, and the runner's interface call reaches it directly.
func init() {
	engine.Register(engine.Factory{
		Name:        NullName,
		Kind:        ProbeKind,
		Description: "probe: stores nothing, returns a well-formed value for every key; its figures are the harness floor",
		New: func(o engine.Options) (engine.Adapter, error) {
			return workloads.NewProbe(o.Seed), nil
		},
	})
}
