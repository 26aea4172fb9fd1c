package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/report"
)

// Bad open-loop flags: exit 2 with one clear line naming the flag, before
// anything is generated or measured (no DRAM-miss line on stderr).
func TestRunOpenLoopBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "0"}, "--rate: rate \"0\": must be above 0"},
		{[]string{"--rate", "-5k"}, "must be above 0"},
		{[]string{"--rate", "fast"}, "not a number"},
		{[]string{"--rate", "1m"}, "milli"},
		{[]string{"--rate", "10k,,1M"}, "item 2 is empty"},
		{[]string{"--rate", "10k,10000"}, "given twice"},
		{[]string{"--rate", "2G"}, "the clock cannot schedule"},
		// Schedulable by the nanosecond clock, not by the clock reads of
		// one worker: the error states the limit.
		{[]string{"--rate", "900M"}, "the limit with 1 workers is"},
		{[]string{"--slo", "p99=1ms"}, "--slo needs --rate"},
		{[]string{"--hgrm", "h"}, "--hgrm needs --rate"},
		{[]string{"--gc-every", "1s"}, "--gc-every needs --rate"},
		{[]string{"--rate", "1k", "--gc-every", "-1s"}, "--gc-every must not be negative"},
		{[]string{"--rate", "1k", "--slo", "p98=1ms"}, "--slo"},
		{[]string{"--rate", "1k", "--slo", "p99=soon"}, "--slo"},
		{[]string{"--rate", "1k", "--arrivals", "bursty"}, "--arrivals must be uniform or poisson"},
		{[]string{"--rate", "1k", "--interval", "0s"}, "--interval must be positive"},
		{[]string{"--rate", "1k", "--hgrm", "/proc/x"}, "--hgrm"},
	} {
		args := append([]string{"run", "--adapters", "map", "--keys", "100", "--count", "1", "--progress", "never"}, c.args...)
		code, _, stderr := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, stderr, c.want)
		}
		if strings.Contains(stderr, "DRAM miss") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: want one line before any measuring, got %q", c.args, stderr)
		}
	}
}

// A tiny open-loop sweep end to end: both rates measured, the JSON holds
// the open-loop figures, --hgrm writes the histograms.
func TestRunOpenLoopSweep(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	hgrm := filepath.Join(dir, "hgrm")
	code, _, stderr := runCLI(t, "run", "--adapters", "map", "--workload", "get-or-set/uniform", "--keys", "500", "--ops", "400",
		"--count", "1", "--rate", "2k,4k", "--arrivals", "poisson", "--slo", "p99=1s", "--hgrm", hgrm, "--interval", "50ms",
		"--no-floor", "--progress", "never", "--format", "json", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r report.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	rates := map[float64]bool{}
	for _, m := range r.Measurements {
		if m.Rate == 0 {
			continue
		}
		rates[m.Rate] = true
		s := m.Samples[0]
		if m.Arrivals != report.ArrivalsPoisson || s.Open == nil || s.Open.Offered != m.Rate || s.Ops != 400 ||
			len(s.Open.Series) < 2 || s.Latency.Samples != 400 {
			t.Errorf("open-loop measurement at %v/s: %+v", m.Rate, m)
		}
	}
	if len(rates) != 2 || r.SLO == nil || r.Config["rate"] != "2k,4k" {
		t.Errorf("rates %v, slo %v, config rate %q", rates, r.SLO, r.Config["rate"])
	}
	files, _ := filepath.Glob(filepath.Join(hgrm, "*.hgrm"))
	if len(files) != 4 {
		t.Errorf("--hgrm wrote %v, want corrected and uncorrected at two rates", files)
	}
}
