package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/report"
)

func TestMergeCommand(t *testing.T) {
	dir := t.TempDir()
	old := writeCompareInput(t, dir, "old.json", synthResult(1, 10, nil, nil))
	// Four processes of three repetitions each, one of them in gobench text.
	var parts []string
	for i, name := range []string{"p1.json", "p2.txt", "p3.json", "p4.json"} {
		parts = append(parts, writeCompareInput(t, dir, name, synthResult(uint64(10+i), 3, nil, nil)))
	}
	merged := filepath.Join(dir, "merged.json")

	// Each part alone has too few samples to compare; merged they have 12.
	if code, _, stderr := runCLI(t, "compare", old, parts[0]); code != 2 || !strings.Contains(stderr, "too few samples") {
		t.Fatalf("one part: exit %d, stderr %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, append([]string{"merge", "-o", merged}, parts...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	res, err := report.ReadResultFile(context.Background(), merged)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Measurements {
		if len(m.Samples) != 12 {
			t.Errorf("%s %s: %d samples, want 12", m.Adapter, m.Phase, len(m.Samples))
		}
	}
	if code, stdout, stderr := runCLI(t, "compare", "--normalize", "fastcache", old, merged); code != 0 {
		t.Errorf("compare with the merged result: exit %d\n%s%s", code, stdout, stderr)
	}

	other := synthResult(9, 3, nil, nil)
	other.Env.CPUModel = "another cpu"
	otherPath := writeCompareInput(t, dir, "other.json", other)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", parts[0], otherPath}, "measured on"},
		{[]string{"merge", parts[0], filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"merge", "-o", filepath.Join(dir, "no", "such", "dir", "m.json"), parts[0]}, "-o"},
		{[]string{"merge"}, "requires at least 1 arg"},
	} {
		code, stdout, stderr := runCLI(t, c.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q (want exit 2 mentioning %q)", c.args[1:], code, stdout, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Error("a failed merge created the -o directory")
	}
}
