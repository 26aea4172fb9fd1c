package report

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/fileio/permtest"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A failing writer leaves the old file and no temporary file.
	boom := errors.New("boom")
	err := WriteFileAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "half a new fi")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("content after a failed write: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary file left behind: %v", ents)
	}
	if err := WriteFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if string(b) != "new" || st.Mode().Perm() != 0o644 {
		t.Errorf("content %q mode %v", b, st.Mode())
	}
	if err := WriteFileAtomic(filepath.Join(dir, "no", "x"), func(io.Writer) error { return nil }); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "no", "x")) {
		t.Errorf("missing directory: %v", err)
	}
}

func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	if err := CheckWritable(filepath.Join(dir, "r.json")); err != nil {
		t.Errorf("writable path refused: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("check left files: %v", ents)
	}
	for _, p := range []string{filepath.Join(dir, "missing", "r.json"), dir, ""} {
		if err := CheckWritable(p); err == nil {
			t.Errorf("%q accepted", p)
		}
	}
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	if err := CheckWritable(filepath.Join(file, "r.json")); err == nil {
		t.Error("a file as directory accepted")
	}
}

// TestCheckWritableReadOnlyDir: a directory this user may not write is
// refused (as nobody under root, which writes anywhere).
func TestCheckWritableReadOnlyDir(t *testing.T) {
	if !permtest.Apply(t) {
		return
	}
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable(filepath.Join(ro, "r.json")); err == nil {
		t.Error("read-only directory accepted")
	}
}
