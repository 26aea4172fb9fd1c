package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/cli"
)

// TestRecordThenReplay runs the example and the command it prints.
func TestRecordThenReplay(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(&out, []string{"-dir", dir, "-requests", "30000", "-keys", "3000"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "recorded 30000 of 30000 requests (0 dropped)") {
		t.Errorf("output:\n%s", out.String())
	}
	_, cmd, ok := strings.Cut(out.String(), "cachebench ")
	if !ok {
		t.Fatalf("no command in:\n%s", out.String())
	}
	args := append(strings.Fields(cmd), "--progress", "never", "--format", "text")
	var res, errb bytes.Buffer
	if code := cli.Execute(context.Background(), args, &res, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	if !strings.Contains(res.String(), "30,000 requests") && !strings.Contains(res.String(), "30000 requests") {
		t.Errorf("the replay did not read the 30,000 requests:\n%s", res.String())
	}
	if err := run(&out, []string{"-requests", "0"}); err == nil {
		t.Error("-requests 0 accepted")
	}
}
