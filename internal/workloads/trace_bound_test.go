package workloads

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/cachebench/cachebench/internal/fit"
)

// A trace workload of a small compressed file holding millions of
// requests is refused once its requests would pass the memory there is
// (here a GOMEMLIMIT of 64 MiB, a limit fit reads), not read until the
// process runs out of memory.
func TestTraceWorkloadMemoryBound(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zeros := make([]byte, 1<<20)
	for range 16 { // 16 MiB of zeros: 4M cache2k requests of key 0
		zw.Write(zeros)
	}
	zw.Close()
	p := filepath.Join(t.TempDir(), "zeros.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	specs, err := Specs("trace:cache2k:"+p, Params{Seed: 1, Capacity: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(64 << 20))
	_, err = Generate(specs[0])
	var tb *fit.TooBigError
	if !errors.As(err, &tb) || tb.Resource != "memory" {
		t.Fatalf("4M requests under a 64 MiB limit: %v, want a TooBigError", err)
	}
}
