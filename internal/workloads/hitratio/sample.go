package hitratio

import (
	"math"

	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// Sampled replays (Config.Sample) replay the requests of a subset of the
// objects, chosen by a seeded hash of the object ID (trace.Sampling), into
// caches whose budgets are the capacities' budgets on the whole trace
// times the sampling rate. Each cell then states the standard error of
// its hit ratios, estimated from the sample itself: a sampled hit ratio
// is a ratio estimator over objects drawn independently at rate R, whose
// variance, by the delta method, is
//
//	(1-R) × Σ_i (h_i - H·n_i)² / (Σ_i n_i)²
//
// over the sampled objects i, with n_i the requests to i, h_i the hits
// among them and H the sampled hit ratio (the same with bytes for the
// byte hit ratio). It measures how much the figure depends on which
// objects were drawn, dominated by the most requested ones; it does not
// measure the bias of modelling a large cache by a small one, which grows
// as the scaled cache shrinks to a few entries.

// TraceSample describes the sample a sampled trace's rows replayed.
type TraceSample struct {
	trace.Sampled
	// Objects is the estimate of the whole trace's distinct objects: the
	// sampled objects over the final rate (the whole trace's objects are
	// never counted, which would take memory in proportion to them).
	Objects int64 `json:"estimated_objects"`
	// Method names how the cells' errors are estimated.
	Method string `json:"error_method"`
}

// ErrorMethod is TraceSample.Method.
const ErrorMethod = "delta-method standard error of a ratio over objects sampled by hash"

// CellSample says how a sampled cell stands for its capacity on the whole
// trace.
type CellSample struct {
	// Rate is the share of objects replayed, the factor the budget was
	// scaled by.
	Rate float64 `json:"rate"`
	// Entries and Bytes are the budget the capacity gives on the whole
	// trace (estimated); the row's Budget is that times Rate.
	Entries int   `json:"full_entries"`
	Bytes   int64 `json:"full_bytes"`
	// StdErr and ByteStdErr are the standard errors of the object and
	// byte hit ratios (as fractions, like the ratios).
	StdErr     float64 `json:"hit_ratio_stderr"`
	ByteStdErr float64 `json:"byte_hit_ratio_stderr"`
}

// fullSummary estimates the summary of the whole trace from that of its
// sample at rate: every count of objects or bytes over the rate, the
// requests as counted when the trace was read.
func fullSummary(s trace.Summary, smp trace.Sampled) trace.Summary {
	r := smp.FinalRate
	return trace.Summary{
		Requests:      smp.InputRequests,
		Distinct:      int(math.Round(float64(s.Distinct) / r)),
		Bytes:         int64(math.Round(float64(s.Bytes) / r)),
		DistinctBytes: int64(math.Round(float64(s.DistinctBytes) / r)),
		MaxSize:       s.MaxSize,
	}
}

// scaled is the budget of capacity c on a sample of summary s: c resolved
// on the whole trace (estimated), times the rate, at least one entry and
// one byte. Without a sample it is c.Resolve(s).
func scaled(c Capacity, s trace.Summary, smp *TraceSample) (Budget, *CellSample) {
	if smp == nil {
		return c.Resolve(s), nil
	}
	r := smp.FinalRate
	full := c.Resolve(fullSummary(s, smp.Sampled))
	b := Budget{
		Entries: max(int(math.Round(float64(full.Entries)*r)), 1),
		Bytes:   max(int64(math.Round(float64(full.Bytes)*r)), 1),
	}
	b.Fraction = float64(b.Entries) / float64(max(s.Distinct, 1))
	return b, &CellSample{Rate: r, Entries: full.Entries, Bytes: full.Bytes}
}

// tally counts each sampled object's requests and hits during one replay,
// for the cell's standard errors: 32 bytes per object of the sample.
type tally []objectCounts

type objectCounts struct{ reqs, hits, reqBytes, hitBytes uint64 }

func newTally(distinct int) tally { return make(tally, distinct) }

func (t tally) add(id uint64, hit bool, size uint32) {
	c := &t[id]
	c.reqs++
	c.reqBytes += uint64(size)
	if hit {
		c.hits++
		c.hitBytes += uint64(size)
	}
}

// stderr gives the standard errors of the object and byte hit ratios of
// the replay counted, for objects sampled at rate (see the comment at the
// top of this file).
func (t tally) stderr(rate float64) (obj, byt float64) {
	var n, h, nb, hb float64
	for _, c := range t {
		n += float64(c.reqs)
		h += float64(c.hits)
		nb += float64(c.reqBytes)
		hb += float64(c.hitBytes)
	}
	if n == 0 || rate >= 1 {
		return 0, 0
	}
	H, HB := h/n, hb/max(nb, 1)
	var v, vb float64
	for _, c := range t {
		d := float64(c.hits) - H*float64(c.reqs)
		db := float64(c.hitBytes) - HB*float64(c.reqBytes)
		v += d * d
		vb += db * db
	}
	obj = math.Sqrt((1-rate)*v) / n
	if nb > 0 {
		byt = math.Sqrt((1-rate)*vb) / nb
	}
	return obj, byt
}
