package mmapstore

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/ctxtest"
)

// TestBuildCancelledAtEachCheck cancels BuildFrom at every check from the
// first Add to just before the rename: each must fail with the context's
// error, leave the old file as it was and no temporary file.
func TestBuildCancelledAtEachCheck(t *testing.T) {
	dir := t.TempDir()
	p := build(t, dir, "c.cache", kv(10), BuildOptions{Seed: 1})
	old, _ := os.ReadFile(p)
	for n := int64(0); ; n++ {
		_, err := BuildFrom(ctxtest.New(n), p, &kvSource{n: 20000}, BuildOptions{Seed: 2}, SourceOptions{Name: "kv"})
		if err == nil {
			// 5 checks while adding (every 4096 pairs), then after the
			// keys are placed, after the index, after the fsync and just
			// before the rename.
			if n != 9 {
				t.Fatalf("build succeeded after %d checks, want 9", n)
			}
			break
		}
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted") {
			t.Fatalf("cancelled at check %d: %v", n, err)
		}
		if now, _ := os.ReadFile(p); string(now) != string(old) {
			t.Fatalf("cancelled at check %d: the old file changed", n)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Fatalf("cancelled at check %d: %d entries in the directory", n, len(ents))
		}
	}
	s, err := Open(filepath.Join(dir, "c.cache"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Len() != 20000 {
		t.Fatalf("finished build has %d keys", s.Len())
	}
}

// kvSource is a Source of key_%d → val_%d.
type kvSource struct{ i, n int }

func (s *kvSource) Next() ([]byte, any, int64, error) {
	if s.i == s.n {
		return nil, nil, 0, io.EOF
	}
	s.i++
	return []byte("key_" + strconv.Itoa(s.i)), []byte("val_" + strconv.Itoa(s.i)), int64(s.i), nil
}
