package trace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestChainReadsPartsInTurn(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.lirs"), filepath.Join(dir, "b.lirs")
	os.WriteFile(a, []byte("1\n2\n"), 0o644)
	os.WriteFile(b, []byte("3\nfour\n5\n"), 0o644)
	parts, ok := ParseChain("chain:" + a + "+" + b)
	if !ok || len(parts) != 2 {
		t.Fatalf("ParseChain: %q %v", parts, ok)
	}
	src := NewChain([]Source{{Path: parts[0]}, {Path: parts[1]}})
	if src.DisplayName() != "a.lirs+b.lirs" || !Sized(src.Format) {
		t.Errorf("name %q, sized %v", src.DisplayName(), Sized(src.Format))
	}
	if err := src.Check(); err != nil {
		t.Fatal(err)
	}
	f, err := src.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := readAll(t, f)
	var re *RecordError
	if len(got) != 3 || got[2].ID != 3 || !errors.As(err, &re) || re.Path != b || re.Record != 2 {
		t.Errorf("read %+v, %v; want 1, 2, 3, then record 2 of %s", got, err, b)
	}
	missing := NewChain([]Source{{Path: a}, {Path: filepath.Join(dir, "none.lirs")}})
	if err := missing.Check(); err == nil {
		t.Error("Check of a chain with a missing part succeeded")
	}
	if _, err := missing.Open(context.Background()); err == nil {
		t.Error("Open of a chain with a missing part succeeded")
	}
	if _, ok := ParseChain(a); ok {
		t.Error("a path is not a chain")
	}
}
