package fileio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReadInput: a file within the limit is read whole, one above it is
// refused with ErrTooLarge, and a device is refused without a read.
func TestReadInput(t *testing.T) {
	p := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadInput(context.Background(), p, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	if _, err := ReadInput(context.Background(), p, 9); !errors.Is(err, ErrTooLarge) {
		t.Errorf("above the limit: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadInput(context.Background(), "/dev/zero", 1<<20); !errors.Is(err, ErrInput) {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}
