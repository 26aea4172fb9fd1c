package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/cachetrace"
)

// makeRecording writes what `go run ./examples/record -dir DIR` and a
// restart leave in dir: traffic.000001.oracleGeneral.zst and
// traffic.000002.oracleGeneral.zst, made with cachetrace.
func makeRecording(t *testing.T, dir string) {
	t.Helper()
	for part := range 2 {
		rec, err := cachetrace.New(cachetrace.Options{Dir: dir, Name: "traffic", Lossless: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 20000 {
			k := (i * 7919) % (3000 + part*1000)
			rec.Record(fmt.Appendf(nil, "session:%d", k*k%5003), 200+k%37*100)
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"traffic.000001.oracleGeneral.zst", "traffic.000002.oracleGeneral.zst"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecordDoc runs the cachebench commands of docs/record.md on a
// recording, with TestExamples' rules (its /tmp paths in a scratch
// directory).
func TestRecordDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	doc, err := filepath.Abs("../../docs/record.md")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	examples, err := pageExamples(repo, doc)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	makeRecording(t, ".")
	ran := 0
	for _, ex := range examples {
		for _, args := range ex.commands {
			args = shrinkExample(args)
			var out, errb bytes.Buffer
			if code := Execute(context.Background(), args, &out, &errb); code != 0 {
				t.Errorf("%s: %s: exit %d\n%s", ex.source, strings.Join(args, " "), code, errb.String())
			}
			ran++
		}
	}
	if ran < 6 {
		t.Errorf("ran %d commands of docs/record.md; the extraction is broken", ran)
	}
}
