// Package machine captures what a measurement ran on (CPU, cores, Go
// version, kernel, modules, revision, transparent-huge-page mode) and
// measures the cost of the clock reads that latency sampling uses and the
// latency of one DRAM miss (DependentLoadNs). It also places the
// harness's pre-generated data (Arena): 2 MiB-aligned, huge-page-advised
// memory outside the Go heap, the same in every process. It belongs to the measuring side:
// the measuring commands call Env once per run and store what it returns
// in the result; package report only renders and stores it (report.Env is
// Host). Anything may import it; it imports nothing of cachebench.
package machine

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/cpuid/v2"
)

// Host records the machine and build a result was measured on; results
// store it as report.Env.
type Host struct {
	CPUModel     string `json:"cpu_model"`
	LogicalCores int    `json:"logical_cores"`
	// GOMAXPROCS is the process default; each measurement records the
	// value it ran with.
	GOMAXPROCS int               `json:"gomaxprocs"`
	GoVersion  string            `json:"go_version"`
	GOOS       string            `json:"goos"`
	GOARCH     string            `json:"goarch"`
	Kernel     string            `json:"kernel,omitempty"`
	GOGC       string            `json:"gogc,omitempty"`
	GOMEMLIMIT string            `json:"gomemlimit,omitempty"`
	Modules    map[string]string `json:"modules,omitempty"`
	// GitRevision is the revision the binary was built from (the go
	// command's vcs stamp, "-dirty" for a modified tree), never the
	// revision of the directory the command ran in: empty for a binary
	// built without a stamp (go run, -buildvcs=false).
	GitRevision string `json:"git_revision,omitempty"`
	// Version is the binary's module version: a release or pseudo-version
	// (go install MODULE@VERSION, or go build/install in a clone since Go
	// 1.24), empty for "(devel)".
	Version string `json:"version,omitempty"`
	// TimerCostNs is the measured cost of one pair of the clock reads
	// that time a sampled operation (machine.Mono), so latency figures
	// can be read against it.
	TimerCostNs float64 `json:"timer_cost_ns,omitempty"`
	// THPMode is the transparent-huge-page mode ("always", "madvise",
	// "never"): it decides how much of a lookup is TLB misses.
	THPMode string `json:"thp_mode,omitempty"`
	// DependentLoadNs is the latency of one dependent load over a region
	// much larger than the last-level cache (one DRAM miss): every lookup
	// figure can be read as a multiple of it.
	DependentLoadNs float64 `json:"dependent_load_ns,omitempty"`
}

// Env records the machine and build the process runs on, and the
// measured timer cost (a few milliseconds: see TimerCost). Every probe
// is best effort: a figure that cannot be read is left empty rather than
// failing a measurement.
func Env() Host {
	e := Host{
		CPUModel: cpuModel(),
		// NumCPU honours the affinity mask, so it counts the logical
		// cores this process may actually run on.
		LogicalCores: runtime.NumCPU(),
		GOMAXPROCS:   runtime.GOMAXPROCS(0),
		GoVersion:    runtime.Version(),
		GOOS:         runtime.GOOS,
		GOARCH:       runtime.GOARCH,
		Kernel:       kernelRelease(),
		GOGC:         envOrDefault("GOGC"),
		GOMEMLIMIT:   envOrDefault("GOMEMLIMIT"),
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		e.Modules = map[string]string{}
		for _, d := range bi.Deps {
			m := d
			if m.Replace != nil {
				m = m.Replace
			}
			e.Modules[d.Path] = m.Version
		}
		if len(e.Modules) == 0 {
			e.Modules = nil
		}
	}
	b := Binary()
	e.GitRevision, e.Version = b.Revision, b.Version
	e.TimerCostNs = TimerCost()
	e.THPMode, _ = THPMode() // empty where the kernel does not say
	return e
}

func envOrDefault(name string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return "default"
}

// cpuModel prefers CPUID's brand string; /proc/cpuinfo covers CPUs whose
// brand CPUID does not report (e.g. many arm64 parts).
func cpuModel() string {
	if name := strings.TrimSpace(cpuid.CPU.BrandName); name != "" {
		return name
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			key, val, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(key) {
			case "model name", "Model", "cpu model":
				if v := strings.TrimSpace(val); v != "" {
					return v
				}
			}
		}
	}
	return "unknown CPU"
}

// kernelRelease returns the kernel release (uname -r), or "".
func kernelRelease() string {
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		if s := strings.TrimSpace(string(b)); s != "" {
			return s
		}
	}
	return unameRelease()
}

// Build describes the running binary, from the build information the go
// command embeds (debug.ReadBuildInfo).
type Build struct {
	// Version is the main module's version: a release (go install
	// MODULE@v1.2.3) or a pseudo-version from the vcs stamp; empty for
	// "(devel)" (go run, or a build without a stamp).
	Version string
	// Revision is the vcs revision the binary was built from, with
	// "-dirty" when the tree had uncommitted changes; empty without a
	// stamp (go run and test binaries, -buildvcs=false).
	Revision string
	// Time is the commit time of Revision (RFC 3339), or "".
	Time string
	// GoVersion is the toolchain that built the binary.
	GoVersion string
	// Tags are the build tags given (-tags), comma-separated, or "".
	Tags string
	// CGO is the CGO_ENABLED setting of the build ("0", "1" or "").
	CGO string
}

// Binary reads the build information of the running binary. Results
// record its revision rather than asking git about the working directory,
// which may hold any other checkout, or none.
func Binary() Build {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Build{GoVersion: runtime.Version()}
	}
	b := Build{GoVersion: bi.GoVersion, Revision: vcsRevision(bi.Settings)}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.time":
			b.Time = s.Value
		case "-tags":
			b.Tags = s.Value
		case "CGO_ENABLED":
			b.CGO = s.Value
		}
	}
	return b
}

// vcsRevision reads the revision the go command stamped into the binary,
// marked "-dirty" when the tree had uncommitted changes.
func vcsRevision(settings []debug.BuildSetting) string {
	var rev string
	var dirty bool
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

// monoBase is Mono's origin.
var monoBase = time.Now()

// Mono is the clock the runner reads around a sampled operation: the
// monotonic time since the process started. It is one clock read where
// time.Now makes two (the wall clock and the monotonic one), so a timed
// operation costs two reads instead of a time.Now/time.Since pair's
// three (each result's machine line shows the measured cost of a pair).
func Mono() time.Duration { return time.Since(monoBase) }

// TimerCost measures the cost in ns of one pair of Mono reads, as the
// runner times a sampled operation: the median over several batches, so
// one preempted batch does not skew it. Latency figures near this cost
// are mostly timer.
func TimerCost() float64 {
	const batches, perBatch = 9, 2000
	costs := make([]float64, batches)
	var sink time.Duration
	for b := range costs {
		start := time.Now()
		for i := 0; i < perBatch; i++ {
			t := Mono()
			sink += Mono() - t
		}
		costs[b] = float64(time.Since(start).Nanoseconds()) / perBatch
	}
	// Keep the measured calls observable so they cannot be optimised away.
	runtime.KeepAlive(sink)
	sort.Float64s(costs)
	return costs[batches/2]
}
