package published

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// Every vendored trace reads to its end in the format its directory names,
// with the request counts of its README.
func TestVendoredTracesRead(t *testing.T) {
	want := map[string]int64{
		"adapt_size/request": 66987, "cache2k/orm-busy": 5000000, "cache2k/web07": 76118,
		"cloud_physics/w106": 5292456, "corda/trace_vaultservice": 135702, "scarab/scarab-recs": 1245184,
		"lirs/loop": 505500, "lirs/multi1": 15858, "lirs/multi2": 26311, "lirs/sprite": 133996, "lirs/ps": 10448,
		"lirs/cs": 6781, "lirs/2_pools": 100000, "lirs/cpp": 9047, "lirs/scan": 50025, "lirs/zigzag": 52001,
		"lirs/gli": 6015, // 6,016 lines, the last one empty
	}
	list := List()
	if len(list) != len(want) {
		t.Fatalf("%d vendored traces, want %d: %v", len(list), len(want), list)
	}
	for _, tr := range list {
		if testing.Short() && want[tr.Name()] > 1e6 {
			continue
		}
		f, err := trace.OpenFS(context.Background(), FS(), tr.Path, tr.Format)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		var q trace.Request
		for {
			err := f.Next(&q)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", tr.Path, err)
			}
			n++
		}
		f.Close()
		if n != want[tr.Name()] {
			t.Errorf("%s: %d requests, want %d", tr.Name(), n, want[tr.Name()])
		}
	}
	if tr, ok := Lookup("lirs/sprite.trace.gz"); !ok || tr.Name() != "lirs/sprite" || tr.Format != trace.LIRS {
		t.Errorf("Lookup: %+v, %v", tr, ok)
	}
}
