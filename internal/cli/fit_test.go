package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHugeWorkRefusedUpFront: parameters whose disk or memory estimate
// exceeds what any machine has are refused with exit 2, the estimate and
// the limit, before anything is written.
func TestHugeWorkRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"trace", "gen", "--requests", "999999999999999", "-o", filepath.Join(dir, "t.oracleGeneral")},
		{"trace", "gen", "--kind", "web", "--requests", "999999999999999", "-o", filepath.Join(dir, "t.oracleGeneral.zst")},
		{"build", "--synthetic", "999999999999999", "-o", filepath.Join(dir, "s.cache")},
		{"gc-pause", "--entries", "2147483648", "--value-size", "1048576", "-o", filepath.Join(dir, "g.json")},
		{"run", "--adapters", "map", "--keys", "1073741824", "--value-size", "16777216", "-o", filepath.Join(dir, "r.json")},
	} {
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, "needs about") || !strings.Contains(errs, "available") || !strings.Contains(errs, "--force") {
			t.Errorf("%v: exit %d, %q; want exit 2 with the estimate and the limit", args, code, errs)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused work left %d files", len(ents))
	}
}
