package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
)

// TestRunReadVector runs the read-vector workload end to end with tiny
// sizes: without --adapters it measures the four float-vector stores
// (group vectors), every read checked, ratios to the reference in the
// table.
func TestRunReadVector(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := runCLI(t, "run", "--workload", "read-vector", "--keys", "3000", "--count", "2",
		"--format", "json", "-o", out, "--progress", "never")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := report.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"mmapstore-floats", "mmapstore-text", "map-floats", "map-text"}
	if got := strings.Split(res.Config["adapters"], ","); !slices.Equal(got, want) {
		t.Fatalf("adapters %v, want the group vectors %v", got, want)
	}
	reads := 0
	for _, m := range res.Measurements {
		if len(m.Samples) != 2 || m.Flags != nil || m.Workload != workloads.ReadVector {
			t.Fatalf("measurement %s %s: %d samples, flags %v", m.Adapter, m.Phase, len(m.Samples), m.Flags)
		}
		if m.Phase != report.PhaseReadVector {
			continue
		}
		reads++
		if m.Reference != workloads.ReadVectorReference {
			t.Errorf("%s: reference %q", m.Adapter, m.Reference)
		}
		for _, s := range m.Samples {
			if s.Hits != 3000 || s.Wrong != 0 || s.Misses != 0 || s.Errors != 0 {
				t.Errorf("%s: sample %+v", m.Adapter, s)
			}
			// Every read allocates nothing, parsing included (a store
			// that garbage-collected its way through the workload would
			// show here); the runner's own per-pass allocations are far
			// below one per read.
			if s.AllocsPerOp > 0.05 {
				t.Errorf("%s: %.3f allocs per read", m.Adapter, s.AllocsPerOp)
			}
		}
	}
	if reads != 5 { // the four stores and the floor probe
		t.Fatalf("%d read-vector measurements, want 5", reads)
	}

	// The table: one row per store with its ratio to the reference, the
	// reference itself at 1, the floor under it.
	code, stdout, stderr := runCLI(t, "report", out, "--format", "markdown")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	for _, s := range []string{"× mmapstore-text ± sd", "| mmapstore-floats |", "| map-text |", "| mmapstore-text | ", " 1.00 ± 0.00 ", "Harness floor", "read-vector "} {
		if !strings.Contains(stdout, s) {
			t.Errorf("report lacks %q:\n%s", s, stdout)
		}
	}
	if strings.Contains(stdout, "Lookup ns") {
		t.Errorf("read-vector's insert shown in the lookup table:\n%s", stdout)
	}
}

// TestRunReadVectorChoices: an adapter that holds no vectors is skipped
// with the reason, a run without the reference says why it has no
// ratios, and --value-size is refused with exit 2.
func TestRunReadVectorChoices(t *testing.T) {
	code, stdout, stderr := runCLI(t, "run", "--adapters", "map,map-floats,map-text", "--workload", "read-vector",
		"--keys", "500", "--count", "1", "--progress", "never", "--no-floor")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "skipped: map: read-vector: holds no float64 vectors") {
		t.Errorf("map not skipped with its reason: %s", stderr)
	}
	if !strings.Contains(stdout, "No ratios: the reference, mmapstore-text, is not in this result") || !strings.Contains(stdout, "| map-floats |") {
		t.Errorf("table:\n%s", stdout)
	}
	code, _, stderr = runCLI(t, "run", "--workload", "read-vector", "--value-size", "64", "--keys", "100")
	if code != exitUsage || !strings.Contains(stderr, "--value-size") {
		t.Errorf("--value-size with read-vector: exit %d, %s", code, stderr)
	}
	// Another workload keeps the default suite, which leaves the group
	// vectors out.
	f := runFlags{adapters: "memory", workload: "insert-lookup,read-vector"}
	if got := f.adapterList(); got != "memory" {
		t.Errorf("adapters for insert-lookup,read-vector = %q, want memory", got)
	}
	fs, err := engine.Resolve("memory")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range engine.FactoryNames(fs) {
		if n == "map-text" || n == "map-floats" {
			t.Errorf("group memory includes %s", n)
		}
	}
}

// TestReadVectorReferenceRegistered: the reference read-vector's tables
// divide by is a registered float-vector store of the group the workload
// runs by default.
func TestReadVectorReferenceRegistered(t *testing.T) {
	f, err := engine.Lookup(workloads.ReadVectorReference)
	if err != nil {
		t.Fatal(err)
	}
	if f.Group != workloads.ReadVectorAdapters {
		t.Errorf("%s is in group %q, want %q", f.Name, f.Group, workloads.ReadVectorAdapters)
	}
	a, err := f.New(engine.Options{Entries: 1, MemoryBytes: 1 << 20, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, ok := a.(engine.Float64sStore); !ok {
		t.Errorf("%s holds no vectors", f.Name)
	}
}
