package gcpause

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Calibration sizes of EstimateRun: a run of more than MinEstimateEntries
// is calibrated with one child per adapter at a tenth of its entries, at
// most MaxCalibrationEntries (about a second per adapter on 2 cores).
// Smaller calibrations read far too low: at 20,000 entries most of an
// adapter's data sits in the CPU caches, and a 2M-entry run extrapolated
// from them took 3.5× the estimate.
const (
	MinEstimateEntries    = 500_000
	MaxCalibrationEntries = 320_000
)

// Estimate is a run's expected wall time, from one calibration child per
// adapter at CalibrationEntries entries.
type Estimate struct {
	CalibrationEntries int
	// Calibration is the wall time the calibration took.
	Calibration time.Duration
	// PerChild is each adapter's expected child wall time at the run's
	// size, in cfg.Adapters order.
	PerChild []ChildEstimate
	// Total is Count × the sum of PerChild.
	Total time.Duration
}

// ChildEstimate is one adapter's expected child wall time.
type ChildEstimate struct {
	Adapter string
	Wall    time.Duration
}

// EstimateRun runs one child per adapter at a tenth of cfg.Entries (see
// MaxCalibrationEntries) and extrapolates each to cfg.Entries: the parts
// that grow with the entries (fill, the two forced collections, and the
// read phase's collections, about one more forced collection's time)
// linearly, the rest (process start, the verified sample, the read
// phase's other cycles) as measured. Per-entry costs grow with size (more
// cache and TLB misses), so the figure is a lower bound; the run's own
// progress line refines it as children finish. A child that fails
// counts as nothing; ctx cancels the calibration.
func EstimateRun(ctx context.Context, cfg Config) (Estimate, error) {
	if err := cfg.Validate(); err != nil {
		return Estimate{}, err
	}
	exe, err := os.Executable()
	if err != nil {
		return Estimate{}, fmt.Errorf("find own executable to re-execute per adapter: %w", err)
	}
	n := cfg.Entries
	c := max(min(n/10, MaxCalibrationEntries), 1)
	est := Estimate{CalibrationEntries: c}
	p := cfg.Params
	p.Entries = c
	p.Verify = min(p.Verify, 1000)
	p.GCReadTime = min(p.GCReadTime, 5*time.Second)
	start := time.Now()
	for i, name := range cfg.Adapters {
		if err := ctx.Err(); err != nil {
			return est, err
		}
		label := fmt.Sprintf("estimating: %s at %d entries (%d/%d)", name, c, i+1, len(cfg.Adapters))
		ev := childEvents{
			progress: func(phase string, done, total int64) {
				if cfg.Progress != nil {
					cfg.Progress(int(done), int(total), label+" "+phase)
				}
			},
			log: func(string) {},
		}
		t := time.Now()
		co, err := runChild(ctx, exe, ChildConfig{Params: p, Adapter: name}, ev)
		wall := time.Since(t)
		if err != nil {
			if ctx.Err() != nil {
				return est, ctx.Err()
			}
			est.PerChild = append(est.PerChild, ChildEstimate{Adapter: name})
			continue
		}
		g := co.GCPause
		growing := time.Duration((g.FillSeconds + co.SettleGCSeconds + 2*g.ForcedGCSeconds) * float64(time.Second))
		fixed := max(wall-growing, 0)
		full := fixed + time.Duration(float64(growing)*float64(n)/float64(c))
		est.PerChild = append(est.PerChild, ChildEstimate{Adapter: name, Wall: full})
		est.Total += full
	}
	est.Total *= time.Duration(cfg.Count)
	est.Calibration = time.Since(start)
	return est, nil
}
