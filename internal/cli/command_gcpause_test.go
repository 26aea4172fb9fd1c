package cli

import (
	"bytes"
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads/gcpause"
)

// TestMain lets the test binary serve as the gc-pause child, as main does:
// gcpause.Measure re-executes os.Executable(), which under `go test` is
// this binary.
func TestMain(m *testing.M) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code, isChild := gcpause.ServeChild(ctx, os.Stdout, os.Stderr)
	stop()
	if isChild {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func TestGCPauseEndToEnd(t *testing.T) {
	const entries = 20000
	out := filepath.Join(t.TempDir(), "gc.json")
	code, stdout, stderr := runCLI(t, "gc-pause", "--entries", "20000", "--adapters", "map,fastcache", "--count", "1",
		"--format", "json", "-o", out, "--progress", "never")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "" {
		t.Fatalf("stdout not empty with -o: %q", stdout)
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
	if res.Kind != report.KindGCPause || res.Interrupted || len(res.GCPause) != 2 {
		t.Fatalf("kind %q, interrupted %v, %d entries", res.Kind, res.Interrupted, len(res.GCPause))
	}
	by := map[string]report.GCPause{}
	for _, p := range res.GCPause {
		if p.Error != "" {
			t.Fatalf("%s failed: %s", p.Adapter, p.Error)
		}
		if p.Entries != entries || p.ValueSize != 100 || p.GOGC != 10 {
			t.Fatalf("%s: configuration %+v", p.Adapter, p)
		}
		if p.Verified != 10000 || p.Missing != 0 || p.Wrong != 0 {
			t.Fatalf("%s: verified %d missing %d wrong %d", p.Adapter, p.Verified, p.Missing, p.Wrong)
		}
		if p.FillSeconds <= 0 || p.ForcedGCSeconds <= 0 || p.PauseCount < 4 || p.GetDuringGC.Samples < 10_000 || p.GetOutsideGC.Samples < 10_000 || p.GCReads.Cycles < 1 {
			t.Fatalf("%s: figures missing: %+v", p.Adapter, p)
		}
		by[p.Adapter] = p
	}
	// map keeps a key string and a value slice per entry on the heap (keys
	// of under 16 bytes can share a tiny-allocator block, so at least one
	// object per entry); fastcache keeps its entries off-heap.
	if m, fc := by["map"], by["fastcache"]; m.HeapObjects < entries || fc.HeapObjects >= m.HeapObjects {
		t.Fatalf("heap objects: map %d, fastcache %d", m.HeapObjects, fc.HeapObjects)
	}
	if res.Config["entries"] != "20000" || res.Config["memory_budget_bytes"] == "" || res.Env.GOGC != "10" {
		t.Fatalf("manifest: %v, GOGC %q", res.Config, res.Env.GOGC)
	}
	if res.Adapters["fastcache@gc-pause"] == nil {
		t.Fatalf("adapter configs missing: %v", res.Adapters)
	}
	if !strings.Contains(stderr, "map #1/1: fill") || !strings.Contains(stderr, "fastcache #1/1: fill") {
		t.Fatalf("no per-child summary on stderr: %q", stderr)
	}
}

func TestGCPauseMarkdownOnStdout(t *testing.T) {
	code, stdout, stderr := runCLI(t, "gc-pause", "--entries", "2000", "--adapters", "map", "--count", "1", "--gogc", "-1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"GC pause on", "2,000 entries", "Forced GC wall", "| map |", "2,000 / 0 / 0", "Outside GC p50 / p99 / p99.9"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("markdown lacks %q:\n%s", want, stdout)
		}
	}
}

func TestGCPauseBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--adapters", "nosuch"}, "valid: "},
		{[]string{"--adapters", "map,nosuch"}, `unknown adapter "nosuch"`},
		{[]string{"--adapters", "cdb"}, "in-memory"},
		{[]string{"--adapters", ","}, "item 1 is empty"},
		{[]string{"--format", "xml"}, "valid: text, markdown, json"},
		{[]string{"--entries", "0"}, "--entries"},
		{[]string{"--entries", "-3"}, "--entries"},
		{[]string{"--entries", "2147483649"}, "--entries"},
		{[]string{"--value-size", "15"}, "--value-size"},
		{[]string{"--value-size", "1048577"}, "--value-size"},
		{[]string{"--gogc", "-2"}, "--gogc"},
		{[]string{"--gogc", "0"}, "--gogc"},
		{[]string{"--count", "0"}, "--count"},
		{[]string{"--verify", "-1"}, "--verify"},
		{[]string{"--gc-reads", "0"}, "--gc-reads"},
		{[]string{"--gc-read-time", "0s"}, "--gc-read-time"},
		{[]string{"--gc-read-time", "soon"}, "--gc-read-time"},
		{[]string{"--progress", "sometimes"}, "--progress"},
		{[]string{"-o", filepath.Join(dir, "missing", "x.json")}, "-o"},
		{[]string{"-o", dir}, "is a directory"},
		{[]string{"--entries", "x"}, "--entries"},
		{[]string{"extra-arg"}, "unknown command"},
	}
	for _, c := range cases {
		args := append([]string{"gc-pause"}, c.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q and no output", c.args, code, stderr, c.want)
		}
	}
}

// cancelOnWriter cancels a context once the text written to it contains
// a marker.
type cancelOnWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (w *cancelOnWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.marker) {
		w.cancel()
	}
	return len(p), nil
}

func TestGCPauseInterruptKeepsMeasured(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel while map's child is filling: its progress bar shows up.
	stderr := &cancelOnWriter{marker: "map #1/1 fill", cancel: cancel}
	var stdout bytes.Buffer
	start := time.Now()
	code := Execute(ctx, []string{"gc-pause", "--entries", "400000", "--adapters", "fastcache,map", "--count", "1",
		"--format", "json", "--progress", "always"}, &stdout, stderr)
	el := time.Since(start)
	stderr.mu.Lock()
	errText := stderr.buf.String()
	stderr.mu.Unlock()
	if code != exitInterrupted || !strings.Contains(errText, "interrupted") {
		t.Fatalf("exit %d, stderr %q; want exit %d saying interrupted", code, errText, exitInterrupted)
	}
	res, err := report.ReadJSON(&stdout)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || len(res.GCPause) != 1 || res.GCPause[0].Adapter != "fastcache" || res.GCPause[0].Error != "" {
		t.Fatalf("interrupted %v, results %+v; want fastcache's result kept", res.Interrupted, res.GCPause)
	}
	t.Logf("interrupted after %v", el)
}

// TestGCPauseResultsCompare runs gc-pause twice and compares the results
// with the compare command: the same code gives the same heap figures.
func TestGCPauseResultsCompare(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"old.json", "new.json"} {
		out := filepath.Join(dir, name)
		code, _, stderr := runCLI(t, "gc-pause", "--entries", "20000", "--adapters", "map,shardcache", "--count", "4",
			"--gc-reads", "1000", "--format", "json", "-o", out, "--progress", "never")
		if code != 0 {
			t.Fatalf("gc-pause exit %d: %s", code, stderr)
		}
		files = append(files, out)
	}
	// Two runs of the same code: at 4 repetitions a side the U test can
	// reach significance, so the timed metrics get a minimum effect no
	// busy machine's noise reaches.
	code, stdout, stderr := runCLI(t, "compare", "--min-samples", "4", "--threshold", "1000%", files[0], files[1])
	if code != 0 {
		t.Fatalf("compare exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"heap-objects/entry", "heap-bytes/entry", "forced-gc-ms", "forced-gc-cpu-ms", "shardcache", "0 regressions"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compare output lacks %q:\n%s", want, stdout)
		}
	}
}
