package adapters_test

import (
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
)

// TestVectorsGroup: every adapter of group vectors holds float64 vectors
// (the conformance suite checks them as engine.Float64sStore), and the
// read-vector workload has its four representations.
func TestVectorsGroup(t *testing.T) {
	fs, err := engine.Resolve("vectors")
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 4 {
		t.Errorf("group vectors = %v, want mmapstore-floats, mmapstore-text, map-floats, map-text", engine.FactoryNames(fs))
	}
	for _, f := range fs {
		a, err := f.New(engine.Options{Entries: 10, MemoryBytes: 1 << 20, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := a.(engine.Float64sStore); !ok {
			t.Errorf("%s is in group vectors but holds no vectors (engine.Float64sStore)", f.Name)
		}
		if err := a.Close(); err != nil {
			t.Error(err)
		}
	}
}
