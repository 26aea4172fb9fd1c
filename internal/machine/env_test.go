package machine

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestEnv(t *testing.T) {
	e := Env()
	if e.CPUModel == "" || e.GoVersion != runtime.Version() || e.GOOS != runtime.GOOS || e.GOARCH != runtime.GOARCH ||
		e.LogicalCores < 1 || !(e.TimerCostNs > 0) || e.GOMAXPROCS != runtime.GOMAXPROCS(0) || e.GOGC == "" || e.GOMEMLIMIT == "" {
		t.Errorf("environment %+v", e)
	}
	if runtime.GOOS == "linux" && e.Kernel == "" {
		t.Error("no kernel release on linux")
	}
	t.Setenv("GOGC", "50")
	if got := Env().GOGC; got != "50" {
		t.Errorf("GOGC %q", got)
	}
}

func TestTimerCost(t *testing.T) {
	c := TimerCost()
	// A pair of clock reads costs something and far less than a
	// millisecond on any machine this runs on.
	if !(c > 0) || c > 1e6 || math.IsInf(c, 0) {
		t.Errorf("timer cost %v ns", c)
	}
}

func TestVCSRevision(t *testing.T) {
	if got := vcsRevision(nil); got != "" {
		t.Errorf("no settings: %q", got)
	}
	dirty := []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}
	if got := vcsRevision(dirty); got != "abc-dirty" {
		t.Errorf("modified tree: %q", got)
	}
	if got := vcsRevision(dirty[:1]); got != "abc" {
		t.Errorf("clean tree: %q", got)
	}
}
