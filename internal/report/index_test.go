package report

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeResultFile(t *testing.T, path string, r *Result) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBuildIndexOneSectionPerCPU(t *testing.T) {
	dir := t.TempDir()
	writeResultFile(t, filepath.Join(dir, "b-xeon-run.json"), runFixture("Intel(R) Xeon(R) Gold 6338"))
	writeResultFile(t, filepath.Join(dir, "a-xeon-gc.json"), gcFixture("Intel(R) Xeon(R) Gold 6338"))
	writeResultFile(t, filepath.Join(dir, "epyc-run.json"), runFixture("AMD EPYC 7B13"))
	// Not results: ignored.
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644)
	// A directory named like a result is refused, naming it, and no
	// README is written: the charts would read it as a result.
	os.Mkdir(filepath.Join(dir, "old.json"), 0o755)
	var ie *InputError
	if err := BuildIndex(context.Background(), dir); !errors.As(err, &ie) || !strings.Contains(err.Error(), "old.json: a directory") {
		t.Fatalf("directory old.json: %v, want an InputError naming it", err)
	}
	if _, err := os.Stat(filepath.Join(dir, IndexName)); err == nil {
		t.Fatal("README written beside a refused entry")
	}
	os.Remove(filepath.Join(dir, "old.json"))

	if err := BuildIndex(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, IndexName))
	if err != nil {
		t.Fatal(err)
	}
	md := string(readme)
	var sections []string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "## ") {
			sections = append(sections, strings.TrimPrefix(line, "## "))
		}
	}
	if strings.Join(sections, ";") != "AMD EPYC 7B13;Intel(R) Xeon(R) Gold 6338" {
		t.Errorf("sections %q, want one per CPU model, sorted", sections)
	}
	// Within a CPU, run results come before gc-pause results.
	run := strings.Index(md, "### b-xeon-run.json · run · 2026-11-22 · revision 0123456789ab")
	gc := strings.Index(md, "### a-xeon-gc.json · gc-pause · 2026-11-21 · revision fedcba987654-dirty")
	if run < 0 || gc < 0 || gc < run {
		t.Errorf("labels missing or gc-pause before run (run at %d, gc at %d)", run, gc)
	}
	golden(t, "index.md.golden", readme)

	// Rebuilding an unchanged folder gives the same bytes.
	if err := BuildIndex(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, IndexName))
	if !bytes.Equal(again, readme) {
		t.Error("README differs between two builds of the same folder")
	}
}

func TestBuildIndexRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	writeResultFile(t, filepath.Join(dir, "good.json"), runFixture("cpu"))
	if err := BuildIndex(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, IndexName))

	newer := runFixture("cpu")
	newer.Schema = 99
	writeResultFile(t, filepath.Join(dir, "future.json"), newer)
	os.WriteFile(filepath.Join(dir, "corrupt.json"), []byte(`{"schema": 1, "tool": "cachebench", "measurements": [`), 0o644)

	err := BuildIndex(context.Background(), dir)
	if err == nil {
		t.Fatal("bad files accepted")
	}
	for _, want := range []string{filepath.Join(dir, "corrupt.json"), filepath.Join(dir, "future.json"), "schema version 99"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Errorf("error %T is not an *InputError", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, IndexName))
	if !bytes.Equal(before, after) {
		t.Error("README changed although the folder has bad files")
	}
}

func TestBuildIndexBadDirAndEmptyDir(t *testing.T) {
	var ie *InputError
	if err := BuildIndex(context.Background(), filepath.Join(t.TempDir(), "missing")); !errors.As(err, &ie) {
		t.Errorf("missing dir: %v", err)
	}
	dir := t.TempDir()
	if err := BuildIndex(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, IndexName))
	if err != nil || !strings.Contains(string(b), "No results yet") {
		t.Errorf("empty folder README: %v %q", err, b)
	}
}

func TestReadResultFileSniffsFormat(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "r.json")
	writeResultFile(t, js, runFixture("cpu"))
	var buf bytes.Buffer
	if err := WriteGoBench(&buf, runFixture("cpu")); err != nil {
		t.Fatal(err)
	}
	gb := filepath.Join(dir, "r.txt")
	os.WriteFile(gb, buf.Bytes(), 0o644)
	for _, p := range []string{js, gb} {
		r, err := ReadResultFile(context.Background(), p)
		if err != nil || len(r.Measurements) == 0 || r.Env.CPUModel != "cpu" {
			t.Errorf("%s: %v", p, err)
		}
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("BenchmarkX 1 x ns/op\n"), 0o644)
	if _, err := ReadResultFile(context.Background(), bad); err == nil || !strings.Contains(err.Error(), bad+":1:") {
		t.Errorf("bad gobench: %v", err)
	}
}

// The index links the folder's other pages: its markdown files and the
// README of each subfolder that has one.
func TestBuildIndexLinksOtherPages(t *testing.T) {
	dir := t.TempDir()
	writeResultFile(t, filepath.Join(dir, "run.json"), runFixture("AMD EPYC 7B13"))
	for _, f := range []string{"log.md", "measure/README.md", "measure/a.txt", "empty/x.txt", "notes.txt"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := BuildIndex(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, IndexName))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Also in this folder: [log.md](log.md), [measure/](measure/README.md).\n"; !strings.Contains(string(readme), want) {
		t.Errorf("the index lacks %q:\n%s", want, readme)
	}
}
