package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func execute(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Execute(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := execute(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	return out
}

// TestTraceConvertRoundTrip: text keys to oracleGeneral to text, and
// through CSV, keep every id, size and time.
func TestTraceConvertRoundTrip(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	var keys strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&keys, "user:%d\n", i*i%997)
	}
	os.WriteFile(p("keys.txt"), []byte(keys.String()), 0o644)
	mustRun(t, "trace", "convert", p("keys.txt"), p("a.oracleGeneral.zst"))
	mustRun(t, "trace", "convert", p("a.oracleGeneral.zst"), p("a.txt"))
	mustRun(t, "trace", "convert", "adaptsize:"+p("a.txt"), p("b.oracleGeneral"))
	mustRun(t, "trace", "convert", p("b.oracleGeneral"), p("b.txt.gz"))
	mustRun(t, "trace", "convert", "adaptsize:"+p("b.txt.gz"), p("c.csv"))
	mustRun(t, "trace", "convert", "csv[time=1,id=2,size=3,header]:"+p("c.csv"), p("d.txt"), "--format", "text")
	a, _ := os.ReadFile(p("a.txt"))
	d, _ := os.ReadFile(p("d.txt"))
	if !bytes.Equal(a, d) || bytes.Count(a, []byte("\n")) != 5000 {
		t.Fatalf("the round trip changed the trace (%d and %d bytes)", len(a), len(d))
	}
	// The oracleGeneral output has its next-request times: head shows
	// record 1's next request (user:0 again at i=997).
	out := mustRun(t, "trace", "head", "-n", "2", p("b.oracleGeneral"))
	if !strings.Contains(out, "998") {
		t.Errorf("head of the converted trace lacks the next request 998:\n%s", out)
	}
	if n := strings.Count(out, "\n"); n != 4 {
		t.Errorf("head -n 2 printed %d lines:\n%s", n, out)
	}
}

// TestTraceConvertBadInput: a malformed record is exit 2 naming it, and
// OUT is not written; so are a bad output name and flag.
func TestTraceConvertBadInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "bad.txt")
	os.WriteFile(in, []byte("1 2 3\n4 five 6\n"), 0o644)
	out := filepath.Join(dir, "out.oracleGeneral")
	code, _, errs := execute(t, "trace", "convert", "adaptsize:"+in, out)
	if code != 2 || !strings.Contains(errs, "record 2") {
		t.Errorf("malformed record: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed convert left %s", out)
	}
	for _, args := range [][]string{
		{"trace", "convert", in, filepath.Join(dir, "out.unknown")},
		{"trace", "convert", in, out, "--format", "parquet"},
		{"trace", "convert", filepath.Join(dir, "missing.txt"), out},
		{"trace", "convert", "csv[key=0]:" + in, out},
		{"trace", "head", "-n", "0", in},
		{"trace", "head", "adaptsize:" + in, "-n", "5"},
	} {
		if code, _, errs := execute(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	if code, _, _ := execute(t, "trace", "convert", empty, out); code != 2 {
		t.Errorf("empty trace: exit %d, want 2", code)
	}
}

// TestHitRatioChain: a chain replays as the concatenation of its traces.
func TestHitRatioChain(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.oracleGeneral"), filepath.Join(dir, "b.oracleGeneral")
	mustRun(t, "trace", "gen", "--kind", "zipf", "--requests", "20000", "--keys", "2000", "--seed", "1", "-o", a)
	mustRun(t, "trace", "gen", "--kind", "loop", "--requests", "20000", "--keys", "3000", "--seed", "2", "-o", b)
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	both := filepath.Join(dir, "ab.oracleGeneral")
	os.WriteFile(both, append(ab, bb...), 0o644)
	args := []string{"hitratio", "--adapters", "lru,sieve", "--capacity", "0.05,0.2", "--format", "text", "--progress", "never"}
	table := func(out string) string { _, rest, _ := strings.Cut(out, "\n\nobject hit"); return rest }
	want := table(mustRun(t, append(args, "--trace", both)...))
	for _, c := range [][]string{{"--chain", a + "," + b}, {"--trace", "chain:" + a + "+" + b}} {
		got := table(mustRun(t, append(args, c...)...))
		if got == "" || got != want {
			t.Errorf("%v:\n%s\nwant, as the concatenated file:\n%s", c, got, want)
		}
	}
	if code, _, errs := execute(t, append(args, "--chain", a+","+filepath.Join(dir, "missing"))...); code != 2 {
		t.Errorf("chain with a missing part: exit %d, want 2 (%s)", code, errs)
	}
}
