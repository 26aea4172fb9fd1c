package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/fit"
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
	} {
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, "needs about") || !strings.Contains(errs, "available") || !strings.Contains(errs, "--force") {
			t.Errorf("%v: exit %d, %q; want exit 2 with the estimate and the limit", args, code, errs)
		}
	}
	// run's data is bounded by the workload's own 8 GiB rule, so its
	// largest estimate (about 170 GiB) is refused only on smaller machines.
	if l := fit.Current(dir); l.MemoryKnown && l.Memory < 100<<30 {
		args := []string{"run", "--adapters", "map", "--keys", "500000000", "--value-size", "16", "-o", filepath.Join(dir, "r.json")}
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, "needs about") || !strings.Contains(errs, "MemAvailable") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused work left %d files", len(ents))
	}
}
