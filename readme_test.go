package cachebench_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The snippets of docs/your-cache.md's "Benchmark your own cache" and of
// the example module's README are the example's code: the benchmark program
// whole, the conformance test's line, the workflow step.
const example = "examples/yourcache"

var fence = regexp.MustCompile("(?ms)^```(go|yaml)\n(.*?)^```$")

// snippets returns the go and yaml blocks of the markdown section that
// starts with heading ("" for the whole file).
func snippets(t *testing.T, file, heading string) (gos, yamls []string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if heading != "" {
		i := strings.Index(s, "\n"+heading+"\n")
		if i < 0 {
			t.Fatalf("%s has no section %q", file, heading)
		}
		s = s[i+1:]
		if j := strings.Index(s[len(heading):], "\n## "); j >= 0 {
			s = s[:len(heading)+j]
		}
	}
	for _, m := range fence.FindAllStringSubmatch(s, -1) {
		if m[1] == "go" {
			gos = append(gos, m[2])
		} else {
			yamls = append(yamls, m[2])
		}
	}
	return gos, yamls
}

func readFile(t *testing.T, parts ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(parts...))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadmeSnippetsAreTheExample(t *testing.T) {
	mainGo := readFile(t, example, "cmd", "yourcachebench", "main.go")
	testGo := readFile(t, example, "cmd", "yourcachebench", "main_test.go")
	workflow := readFile(t, example, ".github", "workflows", "gate.yml")
	for _, c := range []struct{ file, heading string }{
		{filepath.Join("docs", "your-cache.md"), "## Benchmark your own cache"},
		{filepath.Join(example, "README.md"), ""},
	} {
		gos, yamls := snippets(t, c.file, c.heading)
		if len(gos) != 2 || len(yamls) != 1 {
			t.Fatalf("%s: want two go blocks (the program, the test) and one yaml block (the step), found %d and %d",
				c.file, len(gos), len(yamls))
		}
		if gos[0] != mainGo {
			t.Errorf("%s: the program is not %s/cmd/yourcachebench/main.go:\n%s", c.file, example, gos[0])
		}
		if line := strings.TrimSpace(gos[1]); strings.Count(line, "\n") != 0 || !strings.Contains(testGo, "\n"+line+"\n") {
			t.Errorf("%s: the test line %q is not a line of main_test.go", c.file, line)
		}
		if !strings.Contains(workflow, yamls[0]) || !strings.Contains(yamls[0], " gate ") {
			t.Errorf("%s: the workflow step is not a part of %s/.github/workflows/gate.yml:\n%s", c.file, example, yamls[0])
		}
	}
}
