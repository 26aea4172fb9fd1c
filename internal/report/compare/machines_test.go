package compare

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/report"
)

// Runs from different CPU models or core counts get a warning that says
// how to read them; runs from one machine, or a side that does not name
// its CPU, get none.
func TestCompareWarnsAcrossMachines(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	o, n := run(rng, 10, 0.02, 0.02, base...), run(rng, 10, 0.02, 0.02, base...)
	o.Env = report.Env{CPUModel: "Intel(R) Xeon(R) Processor", LogicalCores: 2, GOOS: "linux", GOARCH: "amd64"}
	n.Env = report.Env{CPUModel: "AMD EPYC", LogicalCores: 2, GOOS: "linux", GOARCH: "amd64"}
	rep := mustCompare(t, o, n, DefaultOptions())
	if !strings.Contains(rep.Machines, "OLD ran on Intel(R) Xeon(R) Processor, 2 logical cores, linux/amd64, NEW on AMD EPYC") ||
		!strings.Contains(rep.Machines, "--normalize ADAPTER") {
		t.Errorf("warning %q", rep.Machines)
	}
	var buf bytes.Buffer
	if err := Write(&buf, rep, "text"); err != nil || !strings.Contains(buf.String(), "⚠ Different machines: OLD ran on") {
		t.Errorf("text output (%v):\n%s", err, buf.String())
	}
	opt := DefaultOptions()
	opt.Normalize = "fastcache"
	rep = mustCompare(t, o, n, opt)
	if !strings.Contains(rep.Machines, "ratios to fastcache") {
		t.Errorf("normalised warning %q", rep.Machines)
	}
	n.Env = o.Env
	if rep := mustCompare(t, o, n, DefaultOptions()); rep.Machines != "" {
		t.Errorf("same machine: %q", rep.Machines)
	}
	n.Env = report.Env{}
	if rep := mustCompare(t, o, n, DefaultOptions()); rep.Machines != "" {
		t.Errorf("NEW without a CPU: %q", rep.Machines)
	}
}
