package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// tinyAdvise are the flags of a question answered in a few seconds.
var tinyAdvise = []string{"advise", "--keys", "2K", "--value-size", "64", "--capacity", "10%", "--adapters", "lru,otter",
	"--budget", "30s", "--count", "4", "--progress", "never"}

func TestAdviseBadInputExitsTwo(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.csv")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--access", "zipfian"}, "unknown access pattern"},
		{[]string{"--access", "hotcold:2/3"}, "hotcold:HOT/ACCESS"},
		{[]string{"--capacity", "5000"}, "above the 2000 keys"},
		{[]string{"--budget", "1ms", "--count", "0"}, "too small to measure anything"},
		{[]string{"--access", "trace:" + missing}, "missing.csv"},
		{[]string{"--count", "3"}, "--count 4 or more"},
		{[]string{"--keys", "lots"}, "count \"lots\""},
		{[]string{"--format", "gobench"}, "gobench"},
		{[]string{"--adapters", "nosuch"}, "nosuch"},
	}
	for _, c := range cases {
		args := append(append([]string(nil), tinyAdvise...), c.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 saying %q", c.args, code, stdout, stderr, c.want)
		}
		// Progress lines aside, the error is one line.
		errLines := 0
		for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
			if !strings.HasPrefix(l, "cachebench advise: ") {
				errLines++
			}
		}
		if errLines != 1 {
			t.Errorf("%v: %d error lines on stderr, want one: %q", c.args, errLines, stderr)
		}
	}
}

func TestAdviseAnswers(t *testing.T) {
	args := append(append([]string(nil), tinyAdvise...), "--format", "json")
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Verdict  string   `json:"verdict"`
		Commands []string `json:"commands"`
		Rows     []struct {
			Adapter string `json:"adapter"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Verdict, "For 2,000 keys of 64 B, zipf 1.1") || len(res.Rows) != 2 || len(res.Commands) < 3 {
		t.Errorf("verdict %q, %d rows, commands %q", res.Verdict, len(res.Rows), res.Commands)
	}
	if !strings.Contains(stderr, "plan: get-or-set ×4") || !strings.Contains(stderr, "estimate") {
		t.Errorf("stderr lacks the plan and its estimate: %s", stderr)
	}
	// Every reproducing command is a valid command line of this binary.
	for _, c := range res.Commands {
		if err := parseOnly(strings.Fields(strings.TrimPrefix(c, "cachebench "))); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
}

// TestAdviseInterruptedIsPartial is Ctrl-C after the get-or-set stage:
// the answer so far is printed, marked partial, and the exit code is 130.
func TestAdviseInterruptedIsPartial(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOnWriter{marker: "measuring insert-lookup", cancel: cancel}
	var stdout bytes.Buffer
	code := Execute(ctx, tinyAdvise, &stdout, stderr)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, stderr.buf.String())
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "**Partial") || !strings.Contains(out, "**Verdict:** For 2,000 keys") {
		t.Errorf("stdout is not a partial answer:\n%s", out)
	}
}

// TestCountFlagsTakeUnits checks that every count flag reads 1M, 1e6 and
// 1_000_000 as a million, through the one parser (parse.Count).
func TestCountFlagsTakeUnits(t *testing.T) {
	for _, c := range []struct{ cmd, flag string }{
		{"run", "keys"}, {"run", "ops"}, {"gc-pause", "entries"}, {"trace gen", "requests"}, {"trace gen", "keys"},
		{"build", "synthetic"}, {"advise", "keys"}, {"gate", "keys"},
	} {
		for _, v := range []string{"1M", "1e6", "1_000_000"} {
			root := newRootCmd()
			cmd, _, err := root.Find(strings.Fields(c.cmd))
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.ParseFlags([]string{"--" + c.flag, v}); err != nil {
				t.Errorf("%s --%s %s: %v", c.cmd, c.flag, v, err)
				continue
			}
			if got := cmd.Flags().Lookup(c.flag).Value.String(); got != "1000000" {
				t.Errorf("%s --%s %s = %s, want 1000000", c.cmd, c.flag, v, got)
			}
		}
	}
}
