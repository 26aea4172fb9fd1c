package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/workloads/machine"
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
	for _, want := range []string{"cachebench (devel)\n", "revision   unknown", "left out   lmdb: build with -tags lmdb"} {
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
