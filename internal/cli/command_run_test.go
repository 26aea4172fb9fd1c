package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Execute(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--adapters", "nosuch"}, "valid:"},
		{[]string{"run", "--workload", "nosuch"}, "valid:"},
		{[]string{"run", "--format", "xml"}, "valid: text, markdown, json, gobench"},
		{[]string{"run", "--count", "0"}, "--count"},
		{[]string{"run", "--ops", "-1"}, "--ops"}, // insert-lookup does not read --ops
		{[]string{"run", "--keys", "-5"}, "--keys"},
		{[]string{"run", "--keys", "99999999999"}, "--keys"},
		{[]string{"run", "--cpu", "0"}, "--cpu"},
		{[]string{"run", "--cpu", "1,x"}, "--cpu"},
		{[]string{"run", "--cpu", "1,,2"}, "item 2 is empty"},
		{[]string{"run", "--adapters", "map,,fastcache"}, "item 2 is empty"},
		{[]string{"run", "--workload", "zipf,"}, "item 2 is empty"},
		{[]string{"run", "--capacity", "1"}, "an integer is a count"},
		{[]string{"run", "--capacity", "1.0"}, "below 1"},
		{[]string{"run", "--value-size", "1XB"}, "--value-size"},
		{[]string{"run", "--adapters", "memcached", "--memcached-addr", "bad addr", "--flush-servers"}, "--memcached-addr"},
		{[]string{"run", "--adapters", "redis", "--redis-addr", "localhost:99999", "--flush-servers"}, "--redis-addr"},
		{[]string{"run", "--adapters", "redis", "--redis-cluster", "a:1,b", "--flush-servers"}, "--redis-cluster"},
		{[]string{"run", "--dir", "/proc"}, "--dir"},
		{[]string{"run", "--zipf", "0.5", "--workload", "zipf"}, "--zipf"},
		{[]string{"run", "--progress", "sometimes"}, "--progress"},
		{[]string{"run", "--latency-every", "3"}, "--latency-every"},
		{[]string{"run", "-o", filepath.Join(dir, "missing", "x.json")}, "-o"},
		{[]string{"run", "--nosuchflag"}, "unknown flag"},
		{[]string{"nosuchcommand"}, "unknown command"},
		{[]string{"run", "extra"}, "unknown command"},
		{[]string{"compare", "only-one"}, "accepts 2 arg(s)"},
		{[]string{"merge"}, "requires at least 1 arg(s)"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, stderr, c.want)
		}
	}
}

func TestRunTinyJSONRoundTrip(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := runCLI(t, "run", "--adapters", "map,syncmap", "--keys", "2000", "--count", "2",
		"--cpu", "1,2", "--format", "json", "-o", out, "--progress", "never")
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
	// The floor probe and 2 adapters × 2 phases × 2 GOMAXPROCS values, 2
	// samples each; the probe first.
	if len(res.Measurements) != 12 || res.Measurements[0].Adapter != engine.ProbeName || res.Config["floor"] != "true" {
		t.Fatalf("%d measurements, first %s, floor %q", len(res.Measurements), res.Measurements[0].Adapter, res.Config["floor"])
	}
	if res.Env.DependentLoadNs <= 0 {
		t.Fatalf("no dependent-load latency in the env: %+v", res.Env)
	}
	for _, m := range res.Measurements {
		if len(m.Samples) != 2 || m.Flags != nil {
			t.Fatalf("measurement %+v", m)
		}
	}
	if res.Env.GoVersion == "" || res.Env.CPUModel == "" || res.Config["seed"] != "1" {
		t.Fatalf("environment or config missing: %+v %v", res.Env, res.Config)
	}
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, res); err != nil {
		t.Fatal(err)
	}
	again, err := report.ReadJSON(&buf)
	if err != nil || len(again.Measurements) != len(res.Measurements) || again.Measurements[3].Samples[1] != res.Measurements[3].Samples[1] {
		t.Fatalf("JSON does not round-trip: %v", err)
	}
}

func TestRunMarkdownDefaultShape(t *testing.T) {
	code, stdout, stderr := runCLI(t, "run", "--adapters", "map", "--keys", "1000", "--count", "1", "--progress", "never")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "| map") || !strings.Contains(stdout, "Lookup") {
		t.Fatalf("no markdown table:\n%s", stdout)
	}
	// The floor is a line under the table, not a row in it.
	if !strings.Contains(stdout, "Harness floor") || strings.Contains(stdout, "| null") {
		t.Fatalf("harness floor not printed under the table:\n%s", stdout)
	}
	code, stdout, stderr = runCLI(t, "run", "--adapters", "map", "--keys", "1000", "--count", "1", "--progress", "never", "--no-floor")
	if code != 0 || strings.Contains(stdout, "Harness floor") {
		t.Fatalf("--no-floor: exit %d, %s\n%s", code, stderr, stdout)
	}
}

func TestListNamesEverything(t *testing.T) {
	code, stdout, _ := runCLI(t, "list")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"map", "insert-lookup", "get-or-set/zipf", "hotcold"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("list lacks %q", want)
		}
	}
}

// cobra's own help and completion commands still work beside the listed
// commands and the root's unknown-command check.
func TestHelpAndCompletionStillWork(t *testing.T) {
	for _, args := range [][]string{{}, {"help", "run"}, {"completion", "bash"}, {"__complete", "ru"}} {
		if code, stdout, stderr := runCLI(t, args...); code != exitOK || stdout == "" {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q", args, code, len(stdout), stderr)
		}
	}
}

// TestRunTraceFileCheckedFirst: a trace workload whose file is missing,
// a directory or a device is refused (exit 2, naming --workload) with
// the other flags, before the DRAM-miss measurement, whose line
// ("one DRAM miss ...") run prints before it reads any workload.
func TestRunTraceFileCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	asDir := filepath.Join(dir, "d.oracleGeneral")
	if err := os.Mkdir(asDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ arg, want string }{
		{filepath.Join(dir, "nope.oracleGeneral"), "no such file"},
		{"oracle:" + filepath.Join(dir, "nope"), "no such file"},
		{asDir, "is a directory"},
		{"lirs:/dev/zero", "is a character device"},
		{filepath.Join(dir, "nope"), "no such file"}, // no format in the name either
	} {
		code, _, stderr := runCLI(t, "run", "--workload", "trace:"+c.arg, "--adapters", "lru", "--count", "1", "--progress", "never")
		if code != exitUsage || !strings.Contains(stderr, "--workload trace:"+c.arg+": ") || !strings.Contains(stderr, c.want) {
			t.Errorf("trace:%s: exit %d, %q; want 2 naming --workload and %q", c.arg, code, stderr, c.want)
		}
		if strings.Contains(stderr, "DRAM") {
			t.Errorf("trace:%s: refused only after the DRAM-miss measurement:\n%s", c.arg, stderr)
		}
	}
}

// run --workload trace:... replays a vendored trace by name through the
// runner, with the miss-penalty column; bad traces exit 2 with the record.
func TestRunTraceWorkload(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	code, stdout, stderr := runCLI(t, "run", "--workload", "trace:lirs/cs", "--capacity", "0.2", "--adapters", "lru,otter",
		"--count", "1", "--cpu", "1,2", "--miss-penalty", "100us", "--progress", "never", "--format", "markdown")
	if code != 0 || !strings.Contains(stdout, "trace:lirs/cs · GOMAXPROCS 2 · 1,409 keys") ||
		!strings.Contains(stdout, "Time per request, misses included") || !strings.Contains(stdout, "Harness floor") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	bad := writeFile(t, dir, "bad.trace", "1\n2\nx\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "trace:lirs:" + bad}, "record 3"},
		{[]string{"--workload", "trace:lirs:" + filepath.Join(dir, "missing")}, "no such file"},
		{[]string{"--workload", "trace:"}, "needs a file"},
		{[]string{"--workload", "trace:lirs/cs", "--miss-penalty", "-1s"}, "--miss-penalty"},
	} {
		args := append([]string{"run", "--adapters", "lru", "--count", "1", "--progress", "never", "-o", out}, c.args...)
		if code, _, stderr := runCLI(t, args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 mentioning %q", c.args, code, stderr, c.want)
		}
	}
}
