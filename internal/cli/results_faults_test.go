package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/report"
)

// tinyRun writes a small run result of adapters to dir/name.
func tinyRun(t *testing.T, dir, name, adapters string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if code, _, errs := runCLI(t, "run", "--adapters", adapters, "--keys", "500", "--count", "4", "--format", "json", "-o", p, "--progress", "never"); code != 0 {
		t.Fatalf("run %s: %s", adapters, errs)
	}
	return p
}

func rewrite(t *testing.T, src, dst string, edit func(*report.Result)) string {
	t.Helper()
	r, err := report.ReadResultFile(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	edit(r)
	var b bytes.Buffer
	if err := report.WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestPartialResultsRefused: compare, merge and report refuse what would
// pass for a complete comparison or a merge of distinct runs, exit 2 with
// the reason, never "0 regressions".
func TestPartialResultsRefused(t *testing.T) {
	dir := t.TempDir()
	both := tinyRun(t, dir, "both.json", "map,syncmap")
	mapOnly := tinyRun(t, dir, "map.json", "map")
	lruOnly := tinyRun(t, dir, "lru.json", "lru")
	interrupted := rewrite(t, both, filepath.Join(dir, "int.json"), func(r *report.Result) {
		r.Interrupted, r.InterruptedDuring = true, "syncmap: insert-lookup procs=1"
	})
	hr := filepath.Join(dir, "hr.json")
	tr := filepath.Join(dir, "t.oracleGeneral")
	if code, _, errs := runCLI(t, "trace", "gen", "--requests", "1000", "--keys", "50", "-o", tr); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := runCLI(t, "hitratio", "--trace", tr, "--adapters", "lru", "--capacity", "10", "--format", "json", "-o", hr, "--progress", "never"); code != 0 {
		t.Fatal(errs)
	}
	link := filepath.Join(dir, "link.json")
	os.Symlink("both.json", link)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "--min-samples", "4", both, interrupted}, "NEW is an interrupted run"},
		{[]string{"compare", "--min-samples", "4", interrupted, both}, "OLD is an interrupted run"},
		{[]string{"compare", "--min-samples", "4", both, mapOnly}, "NEW lacks adapters OLD measured: syncmap"},
		// Disjoint adapter sets share only the floor: OLD's are missing.
		{[]string{"compare", "--min-samples", "4", mapOnly, lruOnly}, "NEW lacks adapters OLD measured: map"},
		{[]string{"merge", both, both}, "same contents"},
		{[]string{"merge", both, link}, "same contents"},
		{[]string{"compare", hr, both}, "hit-ratio result"},
		{[]string{"merge", both, hr}, "hit-ratio result"},
		{[]string{"report", hr}, "hit-ratio result"},
	} {
		code, stdout, errs := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) || strings.Contains(stdout, "0 regressions") {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 saying %q", c.args[:1], code, errs, stdout, c.want)
		}
	}
	// NEW with more adapters than OLD is still a comparison of OLD's.
	if code, _, errs := runCLI(t, "compare", "--min-samples", "4", "--normalize", "none", "--threshold", "1000%", mapOnly, both); code != 0 {
		t.Errorf("superset NEW: exit %d: %s", code, errs)
	}
}

// TestInterruptedRunKeepsCompleteFile: a run interrupted with -o naming a
// complete result leaves it as it was and writes NAME.interrupted.json.
func TestInterruptedRunKeepsCompleteFile(t *testing.T) {
	dir := t.TempDir()
	good := tinyRun(t, dir, "good.json", "map")
	before, _ := os.ReadFile(good)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOnWriter{marker: "rep 2/", cancel: cancel}
	var stdout bytes.Buffer
	code := Execute(ctx, []string{"run", "--adapters", "map,syncmap", "--keys", "200000", "--count", "5", "--format", "json",
		"-o", good, "--progress", "always"}, &stdout, stderr)
	stderr.mu.Lock()
	text := stderr.buf.String()
	stderr.mu.Unlock()
	if code != exitInterrupted || !strings.Contains(text, "good.interrupted.json") {
		t.Fatalf("exit %d, stderr %q", code, text)
	}
	if after, _ := os.ReadFile(good); !bytes.Equal(before, after) {
		t.Error("the complete result was replaced")
	}
	r, err := report.ReadResultFile(context.Background(), filepath.Join(dir, "good.interrupted.json"))
	if err != nil || !r.Interrupted {
		t.Fatalf("partial result: %v, %+v", err, r)
	}
}
