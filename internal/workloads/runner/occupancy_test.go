package runner

import (
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
)

type statsAdapter struct {
	engine.Adapter
	stats map[string]uint64
}

func (s statsAdapter) Stats() map[string]uint64 { return s.stats }

type lenAdapter struct {
	engine.Adapter
	n int
}

func (l lenAdapter) Len() int { return l.n }

func TestReadOccupancy(t *testing.T) {
	o := engine.Options{Entries: 20_000, MemoryBytes: 12 << 20}
	// An arena cache rounding its memory up to 32 MiB: over budget on bytes.
	fc := ReadOccupancy(statsAdapter{stats: map[string]uint64{"entries": 31_852, "bytes_size": 32 << 20}}, o)
	if fc.Basis != "bytes" || fc.Entries != 31_852 || !fc.Over() || fc.Ratio() < 2.6 {
		t.Fatalf("fastcache-like: %+v ratio %v", fc, fc.Ratio())
	}
	// An entry-bounded cache at its budget is not over.
	ot := ReadOccupancy(statsAdapter{stats: map[string]uint64{"entries": 20_500}}, o)
	if ot.Basis != "entries" || ot.Over() {
		t.Fatalf("otter-like: %+v", ot)
	}
	// Only Len: an unbounded map holding every key is over.
	m := ReadOccupancy(lenAdapter{n: 200_000}, o)
	if m.Basis != "entries" || m.Entries != 200_000 || !m.Over() {
		t.Fatalf("map-like: %+v", m)
	}
	// Nothing said: unknown, never flagged.
	var none struct{ engine.Adapter }
	u := ReadOccupancy(none, o)
	if u.Basis != "" || u.Over() || u.Entries != -1 || u.Bytes != -1 {
		t.Fatalf("silent adapter: %+v", u)
	}
}
