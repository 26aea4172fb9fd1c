package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/workloads/hitratio"
)

func TestTraceGenAndHitRatio(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "mix.oracleGeneral.zst")
	if code, _, stderr := runCLI(t, "trace", "gen", "--kind", "mix", "--requests", "20000", "--keys", "1000", "-o", tr); code != 0 {
		t.Fatalf("trace gen: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "hr.json")
	// --charts names a directory that does not exist yet (two levels):
	// it is created. --trace-format in libCacheSim's spelling.
	charts := filepath.Join(dir, "charts", "new")
	code, _, stderr := runCLI(t, "hitratio", "--trace", tr, "--trace-format", "oracleGeneral", "--adapters", "lru,arc", "--capacity", "0.05,0.2",
		"--format", "json", "-o", out, "--charts", charts, "--progress", "never")
	if code != 0 {
		t.Fatalf("hitratio: exit %d: %s", code, stderr)
	}
	var res hitratio.Result
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil || res.Kind != hitratio.Kind || len(res.Traces) != 1 || len(res.Traces[0].Rows) != 6 {
		t.Fatalf("result %s: %v", b, err)
	}
	for _, name := range []string{"hitratio-mix-oracleGeneral-zst.png", "hitratio-mix-oracleGeneral-zst.svg", "hitratio-mix-oracleGeneral-zst-bytes.png"} {
		if st, err := os.Stat(filepath.Join(charts, name)); err != nil || st.Size() == 0 {
			t.Errorf("chart %s: %v", name, err)
		}
	}
	code, stdout, _ := runCLI(t, "hitratio", "--trace", tr, "--adapters", "lru", "--capacity", "100", "--format", "markdown", "--progress", "never")
	if code != 0 || !strings.Contains(stdout, "| OPT |") || !strings.Contains(stdout, "| lru |") {
		t.Errorf("markdown: exit %d\n%s", code, stdout)
	}
	noTempFiles(t, dir)
}

func TestHitRatioBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "z.oracleGeneral")
	if code, _, stderr := runCLI(t, "trace", "gen", "--requests", "1000", "--keys", "100", "-o", good); code != 0 {
		t.Fatalf("trace gen: %s", stderr)
	}
	data, _ := os.ReadFile(good)
	cut := writeFile(t, dir, "cut.oracleGeneral", string(data[:24*10+7]))
	empty := writeFile(t, dir, "empty.txt", "")
	cut2k := writeFile(t, dir, "cut.cache2k", "\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00")
	badSize := writeFile(t, dir, "bad.adaptsize", "1 2 3\n2 3 big\n")
	badAddr := writeFile(t, dir, "bad.address", "l 0xgg 1\n")
	unknown := writeFile(t, dir, "trace.unknown", "1\n")
	out := filepath.Join(dir, "out.json")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"hitratio"}, "--trace, --chain or --suite real is required"},
		{[]string{"hitratio", "--suite", "fake"}, "the one suite"},
		{[]string{"hitratio", "--suite", "real", "--trace", good}, "cannot be combined"},
		{[]string{"hitratio", "--trace", good, "--trace-format", "parquet"}, "unknown trace format"},
		{[]string{"hitratio", "--trace", unknown}, "cannot tell"},
		{[]string{"hitratio", "--trace", filepath.Join(dir, "missing")}, "no such file"},
		{[]string{"hitratio", "--trace", dir}, "is a directory"},
		{[]string{"hitratio", "--trace", filepath.Join(dir, "missing.oracleGeneral")}, "no such file"},
		{[]string{"hitratio", "--trace", good, "--capacity", "0"}, "--capacity"},
		{[]string{"hitratio", "--trace", good, "--capacity", "1.5"}, "below 1"},
		{[]string{"hitratio", "--trace", good, "--capacity", "1.0"}, "below 1"},
		{[]string{"hitratio", "--trace", good, "--capacity", "0.1,,0.2"}, "item 2 is empty"},
		{[]string{"hitratio", "--trace", good, "--adapters", "nosuch"}, "valid:"},
		{[]string{"hitratio", "--trace", good, "--format", "xml"}, "valid: text, markdown, json"},
		{[]string{"hitratio", "--trace", good, "--repeat", "0"}, "--repeat must be between 1 and 99"},
		{[]string{"hitratio", "--trace", good, "--repeat", "100"}, "--repeat must be between 1 and 99"},
		{[]string{"hitratio", "--trace", good, "--jobs", "1000000000"}, "--jobs must be in 1..1024"},
		{[]string{"hitratio", "--trace", good, "--capacity", "0.1,1e18B"}, "--capacity 1000000000000000000B on "},
		{[]string{"hitratio", "--from", filepath.Join(dir, "missing.json"), "-o", dir}, "-o: " + dir + ": is a directory"},
		{[]string{"hitratio", "--trace", empty, "-o", out}, "no requests"},
		{[]string{"hitratio", "--trace", cut, "--adapters", "lru", "-o", out}, "record 11: truncated"},
		{[]string{"hitratio", "--trace", "cache2k:" + cut2k, "--adapters", "lru", "-o", out}, "record 3: truncated"},
		{[]string{"hitratio", "--trace", "adapt_size:" + badSize, "--adapters", "lru", "-o", out}, "record 2: size"},
		{[]string{"hitratio", "--trace", "address:" + badAddr, "--adapters", "lru", "-o", out}, "record 1: address"},
		{[]string{"trace", "gen", "--kind", "nosuch", "-o", out}, "valid:"},
		{[]string{"trace", "gen", "--requests", "0", "-o", out}, "requests"},
		{[]string{"trace", "gen", "--value-size", "9-2", "-o", out}, "min <= max"},
		{[]string{"trace", "gen", "--requests", "10", "-o", filepath.Join(dir, "nodir", "x")}, "-o"},
		{[]string{"trace"}, "subcommand"},
		{[]string{"trace", "stats"}, "at least one trace"},
		{[]string{"trace", "stats", "cache2k:" + cut2k}, "record 3: truncated"},
		{[]string{"trace", "stats", empty}, "no requests"},
		{[]string{"hitratio", "--trace", good, "--charts", filepath.Join(good, "charts")}, "--charts"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, append(c.args, "--progress", "never")[:len(c.args)+progressArgs(c.args)]...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 mentioning %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output written by a failed run: %v", err)
	}
	noTempFiles(t, dir)
}

// progressArgs keeps --progress never only for hitratio, the one command
// here that has the flag.
func progressArgs(args []string) int {
	if len(args) > 0 && args[0] == "hitratio" {
		return 2
	}
	return 0
}

// One command replays traces of different formats, each named FORMAT:FILE
// or found from its directory, and the weighted one reports a byte hit
// ratio that differs from its object hit ratio.
func TestHitRatioMixedFormats(t *testing.T) {
	dir := t.TempDir()
	k2 := writeFile(t, dir, "k.bin", "\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x01\xff\xff\xff\xff\x00\x00\x00\x01")
	os.Mkdir(filepath.Join(dir, "adapt_size"), 0o755)
	as := writeFile(t, filepath.Join(dir, "adapt_size"), "request.trace", "1 1 100\n2 2 5000\n3 1 100\n4 3 10\n5 2 5000\n6 1 100\n")
	lirs := writeFile(t, dir, "l.trace", "1\n*\n2\n1\n")
	out := filepath.Join(dir, "hr.json")
	code, _, stderr := runCLI(t, "hitratio", "--trace", "cache2k:"+k2, "--trace", as, "--trace", "lirs:"+lirs,
		"--adapters", "lru", "--capacity", "1,2", "--format", "json", "-o", out, "--progress", "never")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res hitratio.Result
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &res); err != nil || len(res.Traces) != 3 {
		t.Fatalf("result %s: %v", b, err)
	}
	formats := []string{res.Traces[0].Format, res.Traces[1].Format, res.Traces[2].Format}
	if strings.Join(formats, ",") != "cache2k,adaptsize,lirs" {
		t.Errorf("formats %v", formats)
	}
	if r := res.Traces[0]; r.Requests != 5 || r.Distinct != 3 {
		t.Errorf("cache2k trace: %d requests, %d objects", r.Requests, r.Distinct)
	}
	w := res.Traces[1]
	if !w.Sized || w.Bytes != 10310 {
		t.Fatalf("adaptsize trace: sized %v, %d bytes", w.Sized, w.Bytes)
	}
	for _, r := range w.Rows {
		if r.Adapter == "lru" && r.Capacity == "2" && (r.HitRatio == r.ByteHitRatio || r.Hits == 0) {
			t.Errorf("weighted trace: object %v, byte %v", r.HitRatio, r.ByteHitRatio)
		}
	}
}

// trace stats reads a vendored trace by its name, from the binary.
func TestTraceStatsVendored(t *testing.T) {
	code, stdout, stderr := runCLI(t, "trace", "stats", "lirs/cs", "--format", "markdown")
	if code != 0 || !strings.Contains(stdout, "| lirs/cs | lirs | 6,781 | 1,409 |") {
		t.Errorf("exit %d: %s %s", code, stdout, stderr)
	}
}

// needsHundred is a cache that cannot be built below 100 entries, as
// some caches have a minimum size.
func init() {
	engine.Register(engine.Factory{Name: "needs-100", Kind: engine.InMemory, TestOnly: true,
		Description: "test: refuses budgets below 100 entries",
		New: func(o engine.Options) (engine.Adapter, error) {
			if o.Entries < 100 {
				return nil, fmt.Errorf("needs-100: %d entries is below the minimum of 100", o.Entries)
			}
			f, err := engine.Lookup("lru")
			if err != nil {
				return nil, err
			}
			return f.New(o)
		}})
}

// One cell that cannot be configured costs only that cell: the issue's
// case (an adapter refusing 71 entries of LIRS cs at 5%) exits 0 with
// every other adapter's figures.
func TestHitRatioUnconfigurableCell(t *testing.T) {
	code, stdout, stderr := runCLI(t, "hitratio", "--trace", "lirs/cs", "--capacity", "0.05,0.2",
		"--adapters", "lru,otter,needs-100", "--format", "markdown", "--progress", "never")
	if code != 0 || !strings.Contains(stdout, "| needs-100 | n/c | 1.83 |") || !strings.Contains(stdout, "| lru | 1.83 | 1.83 |") ||
		!strings.Contains(stdout, "71 entries is below the minimum of 100") {
		t.Errorf("exit %d: %s\n%s", code, stdout, stderr)
	}
}

// TestHitRatioInterruptKeepsReplayedTraces: Ctrl-C during a sweep's second
// trace leaves a complete result named by -o as it was, writes the first
// trace's rows to NAME.interrupted.json marked as interrupted, and exits
// 130.
func TestHitRatioInterruptKeepsReplayedTraces(t *testing.T) {
	dir := t.TempDir()
	var traces []string
	for _, name := range []string{"first.oracleGeneral", "second.oracleGeneral"} {
		p := filepath.Join(dir, name)
		if code, _, stderr := runCLI(t, "trace", "gen", "--requests", "20000", "--keys", "2000", "-o", p); code != 0 {
			t.Fatalf("trace gen: %s", stderr)
		}
		traces = append(traces, p)
	}
	out := writeFile(t, dir, "out.json", "{\"complete\": true}\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOnWriter{marker: "second.oracleGeneral", cancel: cancel}
	var stdout bytes.Buffer
	code := Execute(ctx, []string{"hitratio", "--trace", traces[0], "--trace", traces[1], "--adapters", "lru,shardcache",
		"--capacity", "0.05,0.1,0.2", "--format", "json", "-o", out, "--progress", "always"}, &stdout, stderr)
	stderr.mu.Lock()
	text := stderr.buf.String()
	stderr.mu.Unlock()
	if code != exitInterrupted || !strings.Contains(text, "out.interrupted.json") {
		t.Fatalf("exit %d, stderr %q", code, text)
	}
	if b, _ := os.ReadFile(out); string(b) != "{\"complete\": true}\n" {
		t.Errorf("the complete result was replaced: %q", b)
	}
	res, err := hitratio.Load(context.Background(), filepath.Join(dir, "out.interrupted.json"))
	if err != nil || !res.Interrupted || len(res.Traces) != 1 || !strings.Contains(res.InterruptedDuring, "second") {
		t.Fatalf("partial result: %v, %+v", err, res)
	}
}

// TestHitratioKilledLeavesNoTrace kills a real hitratio with SIGKILL
// while it replays (its first cell done, the others to come), as the
// kernel's OOM killer would: no defer runs, and its --dir must hold no
// normalized copy of the trace, then or afterwards (it is unnamed).
func TestHitratioKilledLeavesNoTrace(t *testing.T) {
	bin := buildBinary(t)
	tr := filepath.Join(t.TempDir(), "z.oracleGeneral")
	if code, _, stderr := runCLI(t, "trace", "gen", "--requests", "1000000", "--keys", "100000", "-o", tr); code != 0 {
		t.Fatalf("trace gen: exit %d: %s", code, stderr)
	}
	dir := t.TempDir()
	held := func(when string) {
		t.Helper()
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			t.Errorf("%s: --dir holds %s", when, e.Name())
		}
	}
	cmd := exec.Command(bin, "hitratio", "--trace", tr, "--dir", dir, "--jobs", "1", "--progress", "always",
		"--adapters", "lru,arc,otter", "--capacity", "0.01,0.02,0.05,0.1,0.2", "-o", filepath.Join(t.TempDir(), "h.json"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// The progress line names a cell once its replay is done; the
	// normalized trace is in use until the last one.
	r := bufio.NewReader(stderr)
	for line := ""; !strings.Contains(line, "capacity"); {
		b, err := r.ReadBytes('\r')
		if err != nil {
			t.Fatalf("hitratio ended before its first replay finished: %v (%q)", err, b)
		}
		line = string(b)
	}
	held("while replaying")
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != -1 {
		t.Fatalf("exit %d: hitratio finished before the kill, which tests nothing", code)
	}
	held("after SIGKILL")
}
