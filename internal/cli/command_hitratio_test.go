package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	out := filepath.Join(dir, "out.json")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"hitratio"}, "--trace is required"},
		{[]string{"hitratio", "--trace", good, "--trace-format", "parquet"}, "unknown trace format"},
		{[]string{"hitratio", "--trace", filepath.Join(dir, "trace.unknown")}, "cannot tell"},
		{[]string{"hitratio", "--trace", filepath.Join(dir, "missing.oracleGeneral")}, "no such file"},
		{[]string{"hitratio", "--trace", good, "--capacity", "0"}, "--capacity"},
		{[]string{"hitratio", "--trace", good, "--capacity", "1.5"}, "(0,1]"},
		{[]string{"hitratio", "--trace", good, "--adapters", "nosuch"}, "valid:"},
		{[]string{"hitratio", "--trace", good, "--format", "xml"}, "valid: text, markdown, json"},
		{[]string{"hitratio", "--trace", empty, "-o", out}, "no requests"},
		{[]string{"hitratio", "--trace", cut, "--adapters", "lru", "-o", out}, "record 11: truncated"},
		{[]string{"trace", "gen", "--kind", "nosuch", "-o", out}, "valid:"},
		{[]string{"trace", "gen", "--requests", "0", "-o", out}, "requests"},
		{[]string{"trace", "gen", "--value-size", "9-2", "-o", out}, "min <= max"},
		{[]string{"trace", "gen", "--requests", "10", "-o", filepath.Join(dir, "nodir", "x")}, "-o"},
		{[]string{"trace"}, "subcommand"},
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
