package hitratio

import (
	"math"

	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// Sampled replays (Config.Sample) replay the requests of a subset of the
// objects, chosen by a seeded hash of the object ID (trace.Sampling), into
// caches whose budgets are the capacities' budgets on the whole trace
// times the sampling rate R.
//
// A cell's hit ratio is then not the ratio over the sampled requests,
// which one very popular object drawn or missed sways by its whole share
// of the traffic, but SHARDS' adjusted one: the sampled requests are
// brought to the expected R·N (N the trace's requests, counted as it is
// read) by counting the excess or shortfall as hits, which is where a
// popular object's requests go. That is 1 - (misses in the sample / R) / N,
// the Horvitz-Thompson estimate of the whole trace's misses over its
// requests: unbiased if each sampled object misses in the scaled cache as
// it would in the full one (SHARDS' premise), and barely moved by a
// popular object, which misses a few times however often it is requested. Its standard error, over
// the draws of objects, is estimated from the sample as
//
//	sqrt((1-R) × Σ_i m_i²) / (R·N)
//
// with m_i the misses of sampled object i (and the same with bytes for
// the byte hit ratio). It measures how much the figure depends on which
// objects were drawn; it does not measure the bias of modelling a large
// cache by a small one, which grows as the scaled cache shrinks to a few
// entries.

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
const ErrorMethod = "Horvitz-Thompson standard error of the misses of objects sampled by hash"

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
	// StdErr and ByteStdErr are the standard errors of the row's object
	// and byte hit ratios (as fractions, like the ratios).
	StdErr     float64 `json:"hit_ratio_stderr"`
	ByteStdErr float64 `json:"byte_hit_ratio_stderr"`
	// SampleHitRatio and SampleByteHitRatio are the plain ratios over the
	// sampled requests (the row's Hits over its Requests), before the
	// adjustment that gives the row's HitRatio and ByteHitRatio.
	SampleHitRatio     float64 `json:"sample_hit_ratio"`
	SampleByteHitRatio float64 `json:"sample_byte_hit_ratio"`
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

// tally counts each sampled object's misses during one replay, for the
// cell's estimates: 16 bytes per object of the sample.
type tally []objectMisses

type objectMisses struct{ n, bytes uint64 }

func newTally(distinct int) tally { return make(tally, distinct) }

func (t tally) add(id uint64, hit bool, size uint32) {
	if !hit {
		t[id].n++
		t[id].bytes += uint64(size)
	}
}

// estimate sets the hit ratios of row, a replay of the sample smp counted
// by t, to the adjusted estimates for the whole trace, with their standard
// errors in cs (see the comment at the top of this file).
func (t tally) estimate(row *Row, cs *CellSample, smp *TraceSample) {
	cs.SampleHitRatio, cs.SampleByteHitRatio = row.HitRatio, row.ByteHitRatio
	r := smp.FinalRate
	var v, vb float64
	for _, c := range t {
		v += float64(c.n) * float64(c.n)
		vb += float64(c.bytes) * float64(c.bytes)
	}
	// (hits + (expected - sampled requests)) / expected, which is
	// 1 - misses/expected, written so that at rate 1 it is the plain
	// ratio to the last bit.
	if n := r * float64(smp.InputRequests); n > 0 {
		row.HitRatio = clamp01((float64(row.Hits) + (n - float64(row.Requests))) / n)
		cs.StdErr = math.Sqrt((1-r)*v) / n
	}
	if b := r * float64(smp.InputBytes); b > 0 {
		row.ByteHitRatio = clamp01((float64(row.HitBytes) + (b - float64(row.ReqBytes))) / b)
		cs.ByteStdErr = math.Sqrt((1-r)*vb) / b
	}
}

func clamp01(x float64) float64 { return min(max(x, 0), 1) }
