package records

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/fileio"
)

func TestJSONL(t *testing.T) {
	src := NewJSONL(strings.NewReader("{\"key\":\"a\",\"value\":\"1\"}\n\n{\"key_b64\":\"/w==\",\"value_b64\":\"AAE=\"}\n{\"key\":\"b\xc3\",\"value\":\"2\"}\n"), ValueType{})
	k, v, line, err := src.Next()
	if err != nil || string(k) != "a" || v != "1" || line != 1 {
		t.Fatalf("first: %q %q %d %v", k, v, line, err)
	}
	k, v, line, err = src.Next()
	if err != nil || string(k) != "\xff" || string(v.([]byte)) != "\x00\x01" || line != 3 {
		t.Fatalf("base64: %q %q %d %v", k, v, line, err)
	}
	_, _, _, err = src.Next()
	var le *LineError
	if !errors.As(err, &le) || le.Line != 4 || !strings.Contains(err.Error(), "invalid UTF-8 at byte 10") {
		t.Fatalf("invalid UTF-8: %v", err)
	}
}

func TestUnescapeAndSynthetic(t *testing.T) {
	got, err := Unescape(nil, []byte(`a\tb\\c\x41\0`))
	if err != nil || string(got) != "a\tb\\cA\x00" {
		t.Fatalf("%q %v", got, err)
	}
	for _, bad := range []string{`\q`, `\x4`, `\`, `\xZZ`} {
		if _, err := Unescape(nil, []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	s, _ := NewSynthetic(2, ValueType{})
	for i, want := range []string{"key_0", "key_1"} {
		if k, _, line, err := s.Next(); string(k) != want || line != int64(i+1) || err != nil {
			t.Fatalf("%q %d %v", k, line, err)
		}
	}
	if _, _, _, err := s.Next(); err != io.EOF || s.Done() != 2 || s.Total() != 2 {
		t.Fatalf("end: %v", err)
	}
	// An extension it does not know: the format's error for a file that
	// exists, the missing file's for a mistyped path.
	parquet := filepath.Join(t.TempDir(), "x.parquet")
	if _, err := FormatOf(parquet); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file, unknown extension: %v", err)
	}
	if err := os.WriteFile(parquet, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FormatOf(parquet); !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("unknown extension: %v", err)
	}
	if _, err := FormatOf(t.TempDir()); !errors.Is(err, fileio.ErrInput) {
		t.Fatalf("a directory: %v", err)
	}
}
