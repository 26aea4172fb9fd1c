package chart

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/report"
)

func checkFiles(t *testing.T, files []string, want ...string) {
	t.Helper()
	if len(files) != len(want) {
		t.Fatalf("files %v, want %v", files, want)
	}
	for i, f := range files {
		if filepath.Base(f) != want[i] {
			t.Errorf("file %d: %s, want %s", i, filepath.Base(f), want[i])
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(f, ".png") && !bytes.HasPrefix(b, []byte("\x89PNG")):
			t.Errorf("%s is not a PNG", f)
		case strings.HasSuffix(f, ".svg") && !bytes.Contains(b, []byte("<svg")):
			t.Errorf("%s is not an SVG", f)
		}
	}
}

func TestHitRatioCharts(t *testing.T) {
	dir := t.TempDir()
	d := HitRatioData{Trace: "zipf.oracleGeneral", Sized: true}
	for _, a := range []string{"OPT", "lru", "arc"} {
		d.Curves = append(d.Curves, Curve{Name: a, Reference: a == "OPT", Flagged: a == "arc",
			Capacity: []float64{1, 10}, Object: []float64{30, 50}, Bytes: []float64{25, 45}})
	}
	files, err := HitRatio(d, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, files, "hitratio-zipf-oracleGeneral.svg", "hitratio-zipf-oracleGeneral.png",
		"hitratio-zipf-oracleGeneral-bytes.svg", "hitratio-zipf-oracleGeneral-bytes.png")
	svg, _ := os.ReadFile(files[0])
	if !bytes.Contains(svg, []byte("arc (flagged)")) || !bytes.Contains(svg, []byte("object hit ratio (%)")) {
		t.Error("legend or axis label missing from the SVG")
	}
}

func TestRunCharts(t *testing.T) {
	r := &report.Result{}
	for _, a := range []string{"map", "shardcache"} {
		for _, procs := range []int{1, 2} {
			s := report.Sample{OpsPerSec: 1e6 * float64(procs), Latency: report.Latency{P50: 300, P99: 900, P999: 2000}}
			r.Measurements = append(r.Measurements, report.Measurement{Adapter: a, Workload: "insert-lookup",
				Phase: report.PhaseLookup, Procs: procs, Samples: []report.Sample{s, s}})
		}
		r.Measurements = append(r.Measurements, report.Measurement{Adapter: a, Workload: "insert-lookup",
			Phase: report.PhaseInsert, Procs: 1, Samples: []report.Sample{{OpsPerSec: 1}}})
	}
	files, err := Run(r, t.TempDir(), "cpu")
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, files, "cpu-insert-lookup-lookup-latency.svg", "cpu-insert-lookup-lookup-latency.png",
		"cpu-insert-lookup-lookup-qps.svg", "cpu-insert-lookup-lookup-qps.png")
}

// TestSortedAdaptersTies: adapters whose median latencies are equal are
// listed by name, whatever the map's order, so a rebuilt chart of the same
// result is the same file.
func TestSortedAdaptersTies(t *testing.T) {
	m := map[string][]point{
		"otter":      {{procs: 1, p50: 1180}},
		"freecache":  {{procs: 1, p50: 1180}},
		"ristretto":  {{procs: 1, p50: 1180}},
		"shardcache": {{procs: 1, p50: 945}},
		"arc":        {{procs: 1, p50: 2000}},
	}
	want := []string{"shardcache", "freecache", "otter", "ristretto", "arc"}
	for range 50 {
		if got := sortedAdapters(m); !slices.Equal(got, want) {
			t.Fatalf("sortedAdapters = %v, want %v", got, want)
		}
	}
}

func TestOpenLoopCharts(t *testing.T) {
	r := &report.Result{}
	for _, a := range []string{"map", "shardcache"} {
		for _, rate := range []float64{1e4, 1e5, 1e6} {
			achieved := rate
			if rate == 1e6 {
				achieved = 5e5 // saturated
			}
			s := report.Sample{OpsPerSec: achieved, Latency: report.Latency{P50: 300, P99: 900 * rate / 1e4, P999: 2000 * rate / 1e4},
				Open: &report.OpenLoop{Offered: rate, Achieved: achieved, Uncorrected: report.Latency{P99: 500},
					Series: []report.Interval{{StartS: 0, Ops: 10, P99: 900}, {StartS: 1, Ops: 10, P99: 20e6}}}}
			r.Measurements = append(r.Measurements, report.Measurement{Adapter: a, Workload: "get-or-set/zipf", Phase: report.PhaseGetOrSet,
				Procs: 1, Rate: rate, Samples: []report.Sample{s}})
		}
	}
	dir := t.TempDir()
	files, err := Run(r, dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	base := "x-get-or-set-zipf-get-or-set-procs1-open-"
	checkFiles(t, files,
		base+"map.svg", base+"map.png", base+"shardcache.svg", base+"shardcache.png",
		base+"achieved.svg", base+"achieved.png",
		base+"series-10k.svg", base+"series-10k.png", base+"series-100k.svg", base+"series-100k.png", base+"series-1M.svg", base+"series-1M.png")
	svg, _ := os.ReadFile(filepath.Join(dir, base+"map.svg"))
	if !bytes.Contains(svg, []byte("saturated at 1M/s")) || !bytes.Contains(svg, []byte("p99 uncorrected")) {
		t.Errorf("the latency chart does not say where it saturated or lacks the uncorrected line (%v)", names)
	}
}

// TestLogScaleRefusesNonPositive: an x of 0 or less on a log scale, and a
// chart of no points, are errors, where gonum's log scale panicked.
func TestLogScaleRefusesNonPositive(t *testing.T) {
	for _, x := range []float64{0, -1} {
		l := Lines{Title: "t", LogX: true, Series: []Series{{Name: "lru", X: []float64{x, 10}, Y: []float64{1, 2}}}}
		if _, err := l.Plot(); err == nil || !strings.Contains(err.Error(), "must be above 0") {
			t.Errorf("x %v on a log scale: %v, want an error", x, err)
		}
	}
	_, err := HitRatio(HitRatioData{Trace: "empty", Curves: []Curve{{Name: "lru"}}}, t.TempDir())
	if !errors.Is(err, ErrNoPoints) {
		t.Errorf("no rows: %v, want ErrNoPoints", err)
	}
}
