package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunFlaggedAdapterFails: a server that answers every get with
// another key's value flags the row, and then run exits 1 and no
// footnote says every lookup returned the value written.
func TestRunFlaggedAdapterFails(t *testing.T) {
	srv := startFakeMemcached(t, "wrong")
	code, stdout, stderr := runCLI(t, "run", "--adapters", "memcached", "--memcached-addr", srv.Addr, "--flush-servers",
		"--keys", "300", "--count", "1", "--no-floor", "--progress", "never", "--format", "text")
	if code != exitFailure {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFailure, stdout, stderr)
	}
	if !strings.Contains(stdout, "wrong values") || !strings.Contains(stderr, "flagged") {
		t.Fatalf("no flag shown or reported:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if strings.Contains(stdout, "returned the value written") {
		t.Fatalf("a footnote contradicts the flag:\n%s", stdout)
	}
}

// bigGoBench writes a gobench file of n measurements of 4 samples each
// (4n lines, about 15 MB at n = 60000): large enough that reading,
// comparing or merging it takes longer than the moment an interrupt
// comes in.
func bigGoBench(t *testing.T, path string, n int, ns float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\ncpu: Test CPU\n")
	for rep := 0; rep < 4; rep++ {
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "BenchmarkLookup/impl=a%d/workload=w/keys=1000-1 \t 1000\t %g ns/op\t 0 allocs/op\n", i, ns+float64(rep))
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestInterruptStopsResultCommands: compare, report and merge of large
// files stop within a second of an interrupt, exit 130, say
// "interrupted" (not "context canceled") and leave no output file.
func TestInterruptStopsResultCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("writes two 15 MB result files")
	}
	dir := t.TempDir()
	a := bigGoBench(t, filepath.Join(dir, "a.txt"), 60000, 100)
	b := bigGoBench(t, filepath.Join(dir, "b.txt"), 60000, 200)
	out := filepath.Join(dir, "merged.json")
	for _, args := range [][]string{
		{"compare", "--normalize", "none", a, b},
		{"report", "--format", "text", a, b},
		{"merge", a, b, "-o", out},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(30*time.Millisecond, cancel)
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := Execute(ctx, args, &stdout, &stderr)
		took := time.Since(start)
		cancel()
		if code != exitInterrupted || took > 30*time.Millisecond+time.Second {
			t.Errorf("%s: exit %d after %v, want %d within a second of the interrupt\n%s", args[0], code, took, exitInterrupted, stderr.String())
		}
		if msg := stderr.String(); !strings.Contains(msg, "interrupted") || strings.Contains(msg, "context canceled") {
			t.Errorf("%s: stderr %q, want it to say interrupted", args[0], msg)
		}
		t.Logf("%s: exit %d after %v: %s", args[0], code, took, strings.TrimSpace(stderr.String()))
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the directory holds %v, want only the two inputs", names)
	}
}

// TestBadResultFilesRefused: NaN samples (which looped the U test),
// impossible figures, two JSON documents in one file and a directory
// named like a result are refused by compare, merge and report with
// exit 2 and the file (and line) at fault, within a second.
func TestBadResultFilesRefused(t *testing.T) {
	dir := t.TempDir()
	head := "goos: linux\ngoarch: amd64\ncpu: Test CPU\n"
	line := func(ns string) string {
		return "BenchmarkLookup/impl=map/workload=w/keys=1000-1 \t 1000\t " + ns + " ns/op\n"
	}
	good := writeFile(t, dir, "good.txt", head+strings.Repeat(line("100"), 5))
	nan := writeFile(t, dir, "nan.txt", head+strings.Repeat(line("100"), 4)+line("NaN"))
	neg := writeFile(t, dir, "neg.txt", head+line("-100")+strings.Repeat(line("100"), 4))
	zero := writeFile(t, dir, "zero.txt", head+strings.Replace(strings.Repeat(line("100"), 5), " 1000\t", " 0\t", 1))
	run := tinyRun(t, dir, "run.json", "map")
	data, err := os.ReadFile(run)
	if err != nil {
		t.Fatal(err)
	}
	twice := writeFile(t, dir, "twice.json", string(data)+string(data))
	trailing := writeFile(t, dir, "trailing.json", string(data)+"garbage\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", good, nan}, "nan.txt:8: ns/op: NaN is not a finite number"},
		{[]string{"merge", nan}, "nan.txt:8"},
		{[]string{"report", nan}, "nan.txt:8"},
		{[]string{"compare", neg, good}, "neg.txt:4: ns_per_op: -100 is below 0"},
		{[]string{"report", zero}, "zero.txt:4: ops: 0 operations"},
		{[]string{"compare", run, twice}, "a second JSON document"},
		{[]string{"merge", run, twice}, "a second JSON document"},
		{[]string{"report", twice}, "a second JSON document"},
		{[]string{"report", trailing}, "trailing data"},
	} {
		start := time.Now()
		code, _, stderr := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) || time.Since(start) > time.Second {
			t.Errorf("%v: exit %d after %v, stderr %q; want exit 2 saying %q", c.args[0], code, time.Since(start), stderr, c.want)
		}
	}

	// A results folder holding a directory named x.json.
	folder := t.TempDir()
	if err := os.WriteFile(filepath.Join(folder, "run.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(folder, "x.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "report", folder)
	if code != exitUsage || !strings.Contains(stderr, "x.json: a directory") || strings.Contains(stderr, "charts:") {
		t.Errorf("report of a folder with a directory x.json: exit %d, %q", code, stderr)
	}
}

// TestHitRatioFromBadResult: --from refuses impossible figures with the
// line, and --charts skips a trace without rows with a message instead
// of panicking in the log scale.
func TestHitRatioFromBadResult(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.oracleGeneral")
	if code, _, errs := runCLI(t, "trace", "gen", "--requests", "2000", "--keys", "100", "-o", tr); code != 0 {
		t.Fatal(errs)
	}
	hr := filepath.Join(dir, "hr.json")
	if code, _, errs := runCLI(t, "hitratio", "--trace", tr, "--adapters", "lru", "--capacity", "10", "--format", "json", "-o", hr, "--progress", "never"); code != 0 {
		t.Fatal(errs)
	}
	data, err := os.ReadFile(hr)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	edit := func(name string, change func(row map[string]any, trace map[string]any)) string {
		var d map[string]any
		_ = json.Unmarshal(data, &d)
		trace := d["traces"].([]any)[0].(map[string]any)
		change(trace["rows"].([]any)[0].(map[string]any), trace)
		b, _ := json.MarshalIndent(d, "", "  ")
		return writeFile(t, dir, name, string(b))
	}
	negative := edit("neg.json", func(row, _ map[string]any) { row["hit_ratio"] = -3.0 })
	zeroFrac := edit("zero.json", func(row, _ map[string]any) { row["fraction"] = 0.0 })
	noRows := edit("norows.json", func(_, trace map[string]any) { trace["rows"] = []any{} })
	charts := filepath.Join(dir, "charts")
	for _, c := range []struct {
		file, want string
	}{
		{negative, "hit_ratio: -3 is not a ratio between 0 and 1"},
		{zeroFrac, "capacity fraction 0"},
	} {
		code, _, stderr := runCLI(t, "hitratio", "--from", c.file, "--charts", charts)
		if code != exitUsage || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, filepath.Base(c.file)+":") {
			t.Errorf("%s: exit %d, %q; want exit 2 with file:line and %q", filepath.Base(c.file), code, stderr, c.want)
		}
	}
	code, _, stderr := runCLI(t, "hitratio", "--from", noRows, "--charts", charts)
	if code != 0 || !strings.Contains(stderr, "no rows: no chart drawn") {
		t.Errorf("no rows: exit %d, %q; want 0 and a message", code, stderr)
	}
}

// TestRunFrozenServer: a server that accepts connections and answers
// nothing after the adapter's set-up. The pass gives up on it after a
// few timeouts (exit 1, the adapter failed) instead of waiting out
// --timeout for each of its operations, and Ctrl-C cancels the requests
// in flight: exit 130 within a second, at a 5 s --timeout.
func TestRunFrozenServer(t *testing.T) {
	srv := startFakeMemcached(t, "frozen")
	args := []string{"run", "--adapters", "memcached", "--memcached-addr", srv.Addr, "--flush-servers",
		"--keys", "2000", "--count", "1", "--no-floor", "--progress", "never", "--format", "text"}
	start := time.Now()
	code, _, stderr := runCLI(t, append(args, "--timeout", "300ms")...)
	if took := time.Since(start); code != exitFailure || took > 10*time.Second || !strings.Contains(stderr, "timeout") {
		t.Errorf("frozen server at --timeout 300ms: exit %d after %v, stderr %q; want exit 1 in seconds, naming the timeout", code, took, stderr)
	}

	srv = startFakeMemcached(t, "frozen")
	args[4] = srv.Addr
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	interrupted := make(chan time.Time, 1)
	go func() {
		// Interrupt once the pass's first request is waiting on the server.
		<-srv.data
		time.Sleep(50 * time.Millisecond)
		interrupted <- time.Now()
		cancel()
	}()
	var stdout, errb bytes.Buffer
	code = Execute(ctx, append(args, "--timeout", "5s"), &stdout, &errb)
	at := time.Now()
	select {
	case at = <-interrupted:
	default:
	}
	if took := time.Since(at); code != exitInterrupted || took > time.Second {
		t.Errorf("Ctrl-C against a frozen server at --timeout 5s: exit %d after %v, want %d within a second of it\n%s", code, took, exitInterrupted, errb.String())
	}
}

// TestErrorTextSaysInterrupted: the one line printed for an error that an
// interrupt caused says "interrupted" and the signal, never "context
// canceled"; other errors are printed as they are.
func TestErrorTextSaysInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupt signal received"))
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("compare: OLD: read a.json: %w", context.Canceled), "interrupted (interrupt signal received): compare: OLD: read a.json"},
		{fmt.Errorf("interrupted: the 3 measurements taken so far were written to x.interrupted.json: %w", context.Canceled),
			"interrupted (interrupt signal received): the 3 measurements taken so far were written to x.interrupted.json"},
		{context.Canceled, "interrupted (interrupt signal received)"},
		{errors.New("plain failure"), "plain failure"},
	} {
		if got := errorText(ctx, c.err); got != c.want {
			t.Errorf("errorText(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
