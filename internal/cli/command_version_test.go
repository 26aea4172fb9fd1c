package cli

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/machine"
)

func TestWriteVersion(t *testing.T) {
	var buf bytes.Buffer
	writeVersion(&buf, machine.Build{Version: "v0.0.0-20261125232444-6fb988b57f9e", Revision: "6fb988b57f9e1c84ee8838ac7eed09652d1a01fb",
		Time: "2026-11-25T23:24:44Z", GoVersion: "go1.26.8", CGO: "1", Tags: "lmdb"}, nil)
	for _, want := range []string{"cachebench v0.0.0-20261125232444-6fb988b57f9e\n",
		"revision   6fb988b57f9e1c84ee8838ac7eed09652d1a01fb (commit time 2026-11-25T23:24:44Z)", "cgo on, tags lmdb"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("missing %q in\n%s", want, buf.String())
		}
	}
	buf.Reset()
	writeVersion(&buf, machine.Build{GoVersion: "go1.26.8"}, map[string]string{"lmdb": "build with -tags lmdb"})
	for _, want := range []string{"cachebench " + release + " (devel)\n", "revision   unknown", "left out   lmdb: build with -tags lmdb"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("missing %q in\n%s", want, buf.String())
		}
	}
}

// The test binary carries no vcs stamp: version says the revision is
// unknown rather than asking git about the working directory.
func TestVersionCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Execute(context.Background(), []string{"version"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(out.String(), "cachebench ") || !strings.Contains(out.String(), "built with go") {
		t.Fatalf("version: %q", out.String())
	}
}

// The release an unstamped build prints is the newest release of
// CHANGELOG.md, whose release sections are "## vX.Y.Z (YYYY-MM-DD)".
func TestReleaseIsChangelogs(t *testing.T) {
	b, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^## (v\d+\.\d+\.\d+) \(\d{4}-\d{2}-\d{2}\)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("CHANGELOG.md has no release section ## vX.Y.Z (YYYY-MM-DD)")
	}
	if string(m[1]) != release {
		t.Errorf("CHANGELOG.md's newest release is %s, version prints %s", m[1], release)
	}
}
