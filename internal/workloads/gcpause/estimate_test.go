package gcpause

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The fake children report a forced collection of 0.5 s and no fill: what
// grows with the entries is 2 × 0.5 s at the calibration size (a tenth of
// the entries), so 10 s per child at the full size; a failed child counts
// as nothing and is named.
func TestEstimateRunExtrapolates(t *testing.T) {
	cfg := fakeConfig("ok", "crash", "ok2")
	cfg.Entries, cfg.Count = 1000, 3
	var descs []string
	cfg.Progress = func(_, _ int, desc string) { descs = append(descs, desc) }
	est, err := EstimateRun(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if est.CalibrationEntries != 100 || len(est.PerChild) != 3 {
		t.Fatalf("calibration %d entries, %d children", est.CalibrationEntries, len(est.PerChild))
	}
	for i, want := range []string{"ok", "crash", "ok2"} {
		if est.PerChild[i].Adapter != want {
			t.Errorf("child %d: %s, want %s", i, est.PerChild[i].Adapter, want)
		}
	}
	for _, i := range []int{0, 2} {
		// fixed part: the child's wall time less the 1 s it reported.
		if w := est.PerChild[i].Wall; w < 10*time.Second || w > 12*time.Second {
			t.Errorf("%s: %v, want about 10 s", est.PerChild[i].Adapter, w)
		}
	}
	if est.PerChild[1].Wall != 0 {
		t.Errorf("crashed child: %v", est.PerChild[1].Wall)
	}
	if sum := est.PerChild[0].Wall + est.PerChild[2].Wall; est.Total != 3*sum {
		t.Errorf("total %v, want 3 × %v", est.Total, sum)
	}
	if len(descs) == 0 || !strings.Contains(descs[0], "estimating: ok at 100 entries (1/3)") {
		t.Errorf("progress %q", descs)
	}
}

func TestMeasureLogsTheTimeLeft(t *testing.T) {
	cfg := fakeConfig("ok")
	cfg.Count = 3
	var lines []string
	cfg.Log = func(l string) { lines = append(lines, l) }
	if _, err := Measure(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(lines, "\n")
	if !strings.Contains(all, "repetition 1/3 took") || !strings.Contains(all, "repetition 2/3 took") || !strings.Contains(all, "to go (done around") {
		t.Fatalf("log:\n%s", all)
	}
}
