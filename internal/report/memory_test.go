package report

import (
	"strings"
	"testing"
)

// TestGetOrSetMemoryColumns: held/limit and RSS/limit appear in the
// get-or-set table when an adapter reported them, and may exceed 100%.
func TestGetOrSetMemoryColumns(t *testing.T) {
	s := Sample{Ops: 100, NsPerOp: 1000, OpsPerSec: 1e6, Hits: 50, Misses: 50, HitRatio: 0.5, HotHitRatio: 0.6, ColdHitRatio: 0.1,
		HeldBytes: 81, LimitBytes: 100, RSSBytes: 125}
	if v, ok := s.Value(MetricRSSRatio); !ok || v != 1.25 {
		t.Errorf("rss/limit = %v, %v", v, ok)
	}
	if _, ok := (Sample{HitRatio: -1}).Value(MetricHeldRatio); ok {
		t.Error("held/limit reported without a limit")
	}
	res := &Result{Schema: SchemaVersion, Tool: "cachebench", Kind: KindRun, Measurements: []Measurement{
		{Adapter: "memcached", Workload: "get-or-set/umem", Phase: PhaseGetOrSet, Procs: 1, Keys: 100, Samples: []Sample{s}},
	}}
	var b strings.Builder
	if err := WriteMarkdown(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "| Held / limit | RSS / limit |") || !strings.Contains(out, "| 81.0% | 125.0% |") {
		t.Errorf("memory columns missing:\n%s", out)
	}
}
