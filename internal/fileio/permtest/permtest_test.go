package permtest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestApply: past Apply, permissions apply, at the top level and in a
// subtest whose name has a space and a regexp metacharacter.
func TestApply(t *testing.T) {
	check := func(t *testing.T) {
		if !Apply(t) {
			return
		}
		if os.Geteuid() == 0 {
			t.Fatal("past Apply as root")
		}
		p := filepath.Join(t.TempDir(), "secret")
		if err := os.WriteFile(p, []byte("x"), 0o000); err != nil {
			t.Fatal(err)
		}
		if _, err := os.ReadFile(p); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("read a file of mode 000: err = %v, want permission denied", err)
		}
	}
	check(t)
	t.Run("sub (x+)", check)
}

func TestRunPattern(t *testing.T) {
	if got, want := runPattern("TestA/b_(1)"), `^TestA$/^b_\(1\)$`; got != want {
		t.Errorf("runPattern = %q, want %q", got, want)
	}
}
