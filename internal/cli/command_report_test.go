package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/report"
)

// reportFixture is a small hand-made run result.
func reportFixture(cpu string) *report.Result {
	s := func(ns float64) report.Sample {
		return report.Sample{Ops: 100, NsPerOp: ns, OpsPerSec: 1e9 / ns, Hits: 100, HitRatio: 1, HotHitRatio: -1, ColdHitRatio: -1,
			Latency: report.Latency{Samples: 10, P50: ns, P99: 2 * ns, P999: 3 * ns, Max: 4 * ns}}
	}
	return &report.Result{
		Schema: report.SchemaVersion, Tool: "cachebench", Kind: report.KindRun,
		Started: time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC),
		Env:     report.Env{CPUModel: cpu, LogicalCores: 2, GoVersion: "go1.26.0", GOOS: "linux", GOARCH: "amd64"},
		Config:  map[string]string{"seed": "7", "keys": "100"},
		Measurements: []report.Measurement{
			{Adapter: "map", Workload: "insert-lookup", Phase: report.PhaseInsert, Procs: 1, Keys: 100, Samples: []report.Sample{s(300), s(310)}},
			{Adapter: "map", Workload: "insert-lookup", Phase: report.PhaseLookup, Procs: 1, Keys: 100, Samples: []report.Sample{s(250), s(260)}},
		},
	}
}

func writeFixture(t *testing.T, path string, r *report.Result) {
	t.Helper()
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReportDirWritesIndex(t *testing.T) {
	dir := t.TempDir()
	writeFixture(t, filepath.Join(dir, "a.json"), reportFixture("CPU A"))
	writeFixture(t, filepath.Join(dir, "b.json"), reportFixture("CPU B"))
	code, stdout, stderr := runCLI(t, "report", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	readme := filepath.Join(dir, "README.md")
	if strings.TrimSpace(stdout) != readme {
		t.Errorf("stdout %q, want the README path", stdout)
	}
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "## CPU A") || !strings.Contains(string(b), "## CPU B") || !strings.Contains(string(b), "| map |") {
		t.Errorf("README:\n%s", b)
	}
}

func TestReportFilesToStdout(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "r.json")
	writeFixture(t, f, reportFixture("CPU A"))
	code, stdout, stderr := runCLI(t, "report", f, "--format", "text")
	if code != 0 || !strings.Contains(stdout, "map") || !strings.Contains(stdout, "255 ± 7 ns") || strings.Contains(stdout, "|") {
		t.Errorf("text: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	code, stdout, _ = runCLI(t, "report", f)
	if code != 0 || !strings.Contains(stdout, "| map | 255 ± 7 ns |") {
		t.Errorf("markdown: exit %d:\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, "report", f, "--format", "gobench")
	if code != 0 || !strings.Contains(stdout, "BenchmarkLookup/impl=map/workload=insert-lookup/keys=100-1 100 250 ns/op") {
		t.Errorf("gobench: exit %d:\n%s", code, stdout)
	}
	// The gobench output is itself a valid input.
	gb := filepath.Join(dir, "r.txt")
	os.WriteFile(gb, []byte(stdout), 0o644)
	code, stdout, stderr = runCLI(t, "report", gb, "--format", "text")
	if code != 0 || !strings.Contains(stdout, "255 ± 7 ns") {
		t.Errorf("gobench input: exit %d %s:\n%s", code, stderr, stdout)
	}
}

func TestReportBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	writeFixture(t, good, reportFixture("CPU A"))
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o644)
	badDir := filepath.Dir(bad)
	missing := filepath.Join(dir, "missing")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"report", missing}, missing},
		{[]string{"report", bad}, bad},
		{[]string{"report", badDir}, bad},
		{[]string{"report", good, "--format", "xml"}, "valid: text, markdown, gobench"},
		{[]string{"report", dir, "--format", "text"}, "--format"},
		{[]string{"report", dir, good}, "not both"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(badDir, "README.md")); err == nil {
		t.Error("README written for a folder with a corrupt result")
	}
}
