package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/machine"
	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads/runner"
)

// openFlags are run's flags of the open loop (runner.Config.Rates).
type openFlags struct {
	rate     string
	arrivals string
	slo      string
	hgrm     string
	interval time.Duration
	gcEvery  time.Duration
}

// autoFractionsText lists runner.AutoFractions as percentages, for the
// help text.
var autoFractionsText = func() string {
	var parts []string
	for _, f := range runner.AutoFractions {
		parts = append(parts, strconv.FormatFloat(100*f, 'g', -1, 64)+"%")
	}
	return strings.Join(parts, ", ")
}()

func (f *openFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.rate, "rate", "", `open loop: offered operations per second across the workers (50k, 1M), a list to sweep (10k,100k,1M), or "auto" (the closed loop, then fractions of its throughput)`)
	fl.StringVar(&f.arrivals, "arrivals", report.ArrivalsUniform, "open loop: arrival process, uniform or poisson")
	fl.StringVar(&f.slo, "slo", "", "open loop: latency objective of the corrected latency, p50|p99|p99.9=DURATION (p99=1ms); the tables name the highest rate meeting it")
	fl.StringVar(&f.hgrm, "hgrm", "", "open loop: write each adapter's corrected and uncorrected histograms into this directory in HdrHistogram's .hgrm percentile format")
	fl.DurationVar(&f.interval, "interval", runner.DefaultInterval, "open loop: interval of the per-interval time series (ops, p50, p99)")
	fl.DurationVar(&f.gcEvery, "gc-every", 0, "open loop: force a garbage collection (runtime.GC) this often during each pass, to see its cost in the corrected latency (0: only natural ones)")
}

// open checks the open-loop flags and sets them in cfg. The rates must
// be schedulable by this machine's clock with the fewest workers of the
// run (runner.CheckRate); every error is a usage error.
func (f *openFlags) open(cfg *runner.Config, procs []int, factories []engine.Factory, connsPerWorker int) (*report.SLO, error) {
	if f.rate == "" {
		gc := ""
		if f.gcEvery != 0 {
			gc = f.gcEvery.String()
		}
		for _, fl := range []struct{ name, val string }{{"--slo", f.slo}, {"--hgrm", f.hgrm}, {"--gc-every", gc}} {
			if fl.val != "" {
				return nil, usageErrorf("%s needs --rate: it applies to open-loop measurements", fl.name)
			}
		}
		return nil, nil
	}
	if f.arrivals != report.ArrivalsUniform && f.arrivals != report.ArrivalsPoisson {
		return nil, usageErrorf("--arrivals must be %s or %s, got %q", report.ArrivalsUniform, report.ArrivalsPoisson, f.arrivals)
	}
	if f.interval <= 0 {
		return nil, usageErrorf("--interval must be positive, got %v", f.interval)
	}
	if f.gcEvery < 0 {
		return nil, usageErrorf("--gc-every must not be negative, got %v", f.gcEvery)
	}
	cfg.Arrivals, cfg.Interval, cfg.ForceGC = f.arrivals, f.interval, f.gcEvery
	if strings.TrimSpace(f.rate) == "auto" {
		cfg.AutoRate = true
	} else {
		rates, err := parse.Rates(f.rate)
		if err != nil {
			return nil, usageErrorf("--rate: %w", err)
		}
		// The fewest workers a pass of the run has: one per proc, and
		// --conns-per-worker per proc for a network adapter.
		workers := slices.Min(procs)
		if slices.ContainsFunc(factories, func(fac engine.Factory) bool { return fac.Kind == engine.Network }) &&
			!slices.ContainsFunc(factories, func(fac engine.Factory) bool { return fac.Kind != engine.Network }) {
			workers *= connsPerWorker
		}
		timer := machine.TimerCost()
		for _, r := range rates {
			if err := runner.CheckRate(r, workers, timer); err != nil {
				return nil, usageErrorf("--rate: %w", err)
			}
		}
		cfg.Rates = rates
	}
	if f.hgrm != "" {
		if err := os.MkdirAll(f.hgrm, 0o755); err != nil {
			return nil, usageErrorf("--hgrm: %w", err)
		}
		if err := checkDir("--hgrm", f.hgrm); err != nil {
			return nil, err
		}
	}
	if f.slo == "" {
		return nil, nil
	}
	slo, err := report.ParseSLO(f.slo)
	if err != nil {
		return nil, usageErrorf("--slo: %w", err)
	}
	return &slo, nil
}

// openManifest adds the open-loop flags to a run's manifest.
func (f *openFlags) openManifest(m map[string]string) {
	if f.rate == "" {
		return
	}
	m["rate"] = f.rate
	m["arrivals"] = f.arrivals
	m["interval"] = f.interval.String()
	m["gc_every"] = f.gcEvery.String()
	if f.slo != "" {
		m["slo"] = f.slo
	}
}

// writeHgrm writes the .hgrm files of res into --hgrm and says where.
func (f *openFlags) writeHgrm(res *report.Result, stderr io.Writer) error {
	if f.hgrm == "" {
		return nil
	}
	files, err := report.WriteHgrm(f.hgrm, res)
	if err != nil {
		return fmt.Errorf("--hgrm: %w", err)
	}
	fmt.Fprintf(stderr, "cachebench: wrote %d .hgrm histograms into %s\n", len(files), f.hgrm)
	return nil
}
