package trace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/cachebench/cachebench/internal/fileio"
	"github.com/cachebench/cachebench/internal/fileio/permtest"
)

// TestSourceCheck: Check gives the error Open would, before reading: a
// format the name does not tell, a missing file, a directory; a FIFO
// passes unopened (an open would wait for its writer).
func TestSourceCheck(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "keys.txt")
	if err := os.WriteFile(ok, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(dir, "keys.what") // a name that tells no format
	if err := os.WriteFile(odd, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub.txt")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		src  Source
		want error // nil: Check passes
	}{
		{Source{Path: ok}, nil},
		{Source{Path: fifo}, nil},
		{Source{Path: odd}, ErrUnknownFormat},
		{Source{Path: ok, Format: "nonesuch"}, ErrUnknownFormat},
		{Source{Path: filepath.Join(dir, "missing.txt")}, fs.ErrNotExist},
		{Source{Path: sub}, fileio.ErrInput},
		{Source{FS: fstest.MapFS{"a.txt": {Data: []byte("a\n")}}, Path: "a.txt"}, nil},
		{Source{FS: fstest.MapFS{}, Path: "b.txt"}, fs.ErrNotExist},
	} {
		err := c.src.Check()
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v", c.src.Path, err)
			}
			continue
		}
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.src.Path) {
			t.Errorf("%s: err = %v, want %v naming the path", c.src.Path, err, c.want)
		}
		if c.src.FS == nil && c.want != ErrUnknownFormat {
			// Open agrees.
			if f, oerr := c.src.Open(context.Background()); oerr == nil || !errors.Is(oerr, c.want) {
				if oerr == nil {
					f.Close()
				}
				t.Errorf("%s: Open err = %v, want %v", c.src.Path, oerr, c.want)
			}
		}
	}
}

// TestSourceCheckUnreadable: a file this user may not read fails Check,
// not the first read (as nobody under root, which reads anything).
func TestSourceCheckUnreadable(t *testing.T) {
	if !permtest.Apply(t) {
		return
	}
	p := filepath.Join(t.TempDir(), "keys.txt")
	if err := os.WriteFile(p, []byte("a\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	err := Source{Path: p}.Check()
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), p) {
		t.Errorf("Check: err = %v, want permission denied naming %s", err, p)
	}
}
