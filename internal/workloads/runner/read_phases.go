package runner

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
)

// readPhases runs the lookup passes after an insert: open time and cold
// passes for file stores, warm-up, the timed lookup and a batched lookup
// where the adapter has one.
func (d *driver) readPhases(ctx context.Context, cfg *Config, order *workloads.Stream, add func(report.Phase, string, report.Sample, int)) error {
	fb, isFile := d.a.(engine.FileBacked)
	if isFile {
		t0 := time.Now()
		if err := fb.Reopen(); err != nil {
			return failed(report.FailReopen, "reopen", err)
		}
		el := time.Since(t0)
		add(report.PhaseOpen, "close and reopen of the built store, one goroutine", report.Sample{
			Ops: 1, NsPerOp: float64(el.Nanoseconds()), OpsPerSec: 1 / el.Seconds(), HitRatio: -1, HotHitRatio: -1, ColdHitRatio: -1,
		}, d.procs)
	}
	d.warm(order, cfg.Warmup, opLookup)
	s, err := d.timed(order, opLookup)
	if err != nil {
		return failed(report.FailOps, "lookup", err)
	}
	add(report.PhaseLookup, "", s, d.procs)
	if d.rate > 0 {
		// An open-loop run measures the lookups at its rate; the batched
		// and cold passes are closed-loop figures of their own, which a
		// run without --rate gives.
		return nil
	}
	if bg, ok := d.a.(engine.BatchGetter); ok {
		s, err := d.batchPass(bg, order)
		if err != nil {
			return failed(report.FailOps, "batched lookup", err)
		}
		add(report.PhaseLookupBatch, "GetBatch in batches of 64 keys", s, d.procs)
	}
	if isFile && ctx.Err() == nil {
		n := order.Len()
		if cfg.ColdOps > 0 && cfg.ColdOps < n {
			n = cfg.ColdOps
		}
		// Two cold passes over the same keys. A cold pass is a few slow
		// lookups (each page fault reads the file's pages around it from
		// disk: milliseconds) among many fast ones: too few for the
		// 1-in-latency-every samples of the first pass to reach (its p99
		// stayed below its mean). So the mean comes from that pass, timed
		// as every pass is, and the latency distribution from a second
		// cold pass that times every lookup (the per-lookup clock reads
		// would add their cost to a mean).
		if err := d.dropPages(fb); err != nil {
			return err
		}
		if d.coldUnsupported {
			return nil
		}
		s, err := d.pass(order.Slice(0, n), opLookup)
		if err != nil {
			return failed(report.FailOps, "cold lookup", err)
		}
		if err := d.dropPages(fb); err != nil {
			return err
		}
		every := d.every
		d.every = 1
		timed, err := d.pass(order.Slice(0, n), opLookup)
		d.every = every
		if err != nil {
			return failed(report.FailOps, "cold lookup, timing every lookup", err)
		}
		s.Latency = timed.Latency
		add(report.PhaseLookupCold, "first "+strconv.Itoa(n)+" lookups after dropping the file's pages (posix_fadvise DONTNEED); latency percentiles from a second such pass timing every lookup", s, d.procs)
	}
	return nil
}

// dropPages reopens a file store on a fresh mapping and drops its files'
// pages from the page cache, so that the next pass runs cold. Reopen
// first: DONTNEED cannot drop pages that are still mapped, and a fresh
// mapping has faulted in nothing but the header. A platform without the
// capability sets coldUnsupported and says so.
func (d *driver) dropPages(fb engine.FileBacked) error {
	if err := fb.Reopen(); err != nil {
		return failed(report.FailReopen, "reopen", err)
	}
	if err := dropPageCache(fb.Paths()); errors.Is(err, errors.ErrUnsupported) {
		d.coldUnsupported = true
		d.unsupported = append(d.unsupported, "cold lookups: "+err.Error())
		return nil
	} else if err != nil {
		return failed(report.FailPageCache, "", err)
	}
	return nil
}
