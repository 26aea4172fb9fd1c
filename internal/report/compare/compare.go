// Package compare decides whether a new set of cachebench results is
// slower, leaner or just different from an old one, as a regression gate
// can act on: per measurement and metric, a Mann-Whitney U test
// (golang.org/x/perf/benchmath, as benchstat does) plus a minimum effect
// size for noisy metrics, and an exact comparison of means for the
// deterministic ones (allocs/op, B/op).
//
// Shared CI machines drift run to run by more than the effects worth
// catching, so Options.Normalize divides each adapter's noisy figures by
// a reference adapter's figures from the same repetition of the same run
// (the runner interleaves adapters A B A B, so repetition i of two
// adapters ran next to each other): a busier machine slows both and the
// ratio stays put.
//
// Failures are matched by report.Failure.Key (adapter, workload, procs and
// code), never by their message, which holds temporary paths.
package compare

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/cachebench/cachebench/internal/report"
)

// floatNoise is the relative difference below which two means of exact
// metrics are the same number computed in a different order.
const floatNoise = 1e-9

// Compare compares NEW against OLD. The error is an input error (one of
// the Err values above, wrapped with the details); a regression is not an
// error here but a Verdict in the Report.
func Compare(oldRes, newRes *report.Result, opt Options) (*Report, error) {
	if oldRes == nil || newRes == nil {
		return nil, fmt.Errorf("%w: nil result", ErrOptions)
	}
	opt = resolveDefaults(opt, oldRes, newRes)
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	if oldRes.Kind == report.KindGCPause || newRes.Kind == report.KindGCPause {
		rep, err := compareGCPause(oldRes, newRes, opt) // see gcpause.go
		if rep != nil {
			rep.Machines = machines(oldRes.Env, newRes.Env, opt.Normalize)
		}
		return rep, err
	}
	oldM, newM := index(oldRes), index(newRes)
	rep := &Report{Options: opt, Machines: machines(oldRes.Env, newRes.Env, opt.Normalize)}
	var common []Key
	for _, m := range newRes.Measurements {
		k := keyOf(m)
		if _, ok := oldM[k]; ok {
			common = append(common, k)
		} else {
			rep.OnlyNew = append(rep.OnlyNew, k)
		}
	}
	for _, m := range oldRes.Measurements {
		if _, ok := newM[keyOf(m)]; !ok {
			rep.OnlyOld = append(rep.OnlyOld, keyOf(m))
		}
	}
	common = dedupKeys(common)
	rep.OnlyNew, rep.OnlyOld = dedupKeys(rep.OnlyNew), dedupKeys(rep.OnlyOld)
	if len(common) == 0 {
		return nil, fmt.Errorf("%w (OLD has %d measurements, NEW %d; they must share adapter, workload, phase, procs and keys)",
			ErrNothingInCommon, len(oldRes.Measurements), len(newRes.Measurements))
	}
	var few []string
	for _, k := range common {
		o, n := len(oldM[k].Samples), len(newM[k].Samples)
		if o < opt.MinSamples || n < opt.MinSamples {
			few = append(few, fmt.Sprintf("%s: %d old, %d new", k, o, n))
		}
	}
	if len(few) > 0 {
		return nil, fmt.Errorf("%w: need at least %d samples per measurement (--count 10 is recommended for gating): %s",
			ErrTooFewSamples, opt.MinSamples, strings.Join(few, "; "))
	}
	var oldN, newN map[Key]map[report.Metric][]float64
	if opt.Normalize != "" {
		refs := refPhases(oldM, newM, common, opt)
		var err error
		if oldN, err = normalize(oldM, common, refs, opt, "OLD"); err != nil {
			return nil, err
		}
		if newN, err = normalize(newM, common, refs, opt, "NEW"); err != nil {
			return nil, err
		}
	}
	sortKeys(common)
	for _, spec := range opt.Metrics {
		for _, k := range common {
			normalized := opt.Normalize != "" && !spec.Exact
			if normalized && k.Adapter != opt.Normalize && (oldN[k] == nil || newN[k] == nil) {
				normalized = false // the reference lacks this phase, or the adapter is compared absolute
			}
			var ov, nv []float64
			if normalized {
				if k.Adapter == opt.Normalize {
					continue // always 1: nothing to compare
				}
				ov, nv = oldN[k][spec.Metric], newN[k][spec.Metric]
			} else {
				ov, nv = oldM[k].Values(spec.Metric), newM[k].Values(spec.Metric)
			}
			if len(ov) == 0 || len(nv) == 0 {
				continue // the metric does not exist for this phase
			}
			row := compareValues(spec, ov, nv, opt)
			row.Key, row.Normalized = k, normalized
			rep.Rows = append(rep.Rows, row)
		}
	}
	rep.NewFlags = newFlags(oldM, newM, common)
	rep.NewErrors = newErrors(oldRes.Errors, newRes.Errors)
	return rep, nil
}

func checkOptions(opt Options) error {
	switch {
	case !(opt.Alpha > 0 && opt.Alpha < 1):
		return fmt.Errorf("%w: alpha %v must be in (0, 1)", ErrOptions, opt.Alpha)
	case report.CheckSamples("minimum samples", opt.MinSamples, opt.MinSamples, opt.Alpha) != nil:
		// Fewer could only ever say "no difference": a verdict weaker
		// than its evidence.
		return fmt.Errorf("%w: %w", ErrOptions, report.CheckSamples("minimum samples", opt.MinSamples, opt.MinSamples, opt.Alpha))
	case len(opt.Metrics) == 0:
		return fmt.Errorf("%w: no metric to compare", ErrOptions)
	}
	for _, s := range opt.Metrics {
		if s.Threshold < 0 || math.IsNaN(s.Threshold) || math.IsInf(s.Threshold, 0) {
			return fmt.Errorf("%w: threshold of %s must be a finite number >= 0, got %v", ErrOptions, s.Metric, s.Threshold)
		}
	}
	return nil
}

// index maps each measurement to its key. A key seen twice (two runs
// concatenated into one file) merges the samples, as benchstat does.
func index(r *report.Result) map[Key]report.Measurement {
	out := make(map[Key]report.Measurement, len(r.Measurements))
	for _, m := range r.Measurements {
		k := keyOf(m)
		if prev, ok := out[k]; ok {
			prev.Samples = append(append([]report.Sample(nil), prev.Samples...), m.Samples...)
			prev.Flags = append(append([]report.Flag(nil), prev.Flags...), m.Flags...)
			out[k] = prev
			continue
		}
		out[k] = m
	}
	return out
}

func dedupKeys(ks []Key) []Key {
	seen := make(map[Key]bool, len(ks))
	out := ks[:0]
	for _, k := range ks {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// sortKeys orders rows as a reader scans them: workload, phase, procs,
// keys, then adapter.
func sortKeys(ks []Key) {
	sort.SliceStable(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		switch {
		case a.Workload != b.Workload:
			return a.Workload < b.Workload
		case a.Phase != b.Phase:
			return a.Phase < b.Phase
		case a.Procs != b.Procs:
			return a.Procs < b.Procs
		case a.Keys != b.Keys:
			return a.Keys < b.Keys
		}
		return a.Adapter < b.Adapter
	})
}

// refPhases says, for every common measurement to be normalised, which
// phase of the reference adapter it is divided by, the same for OLD and
// NEW: its own phase where the reference has it on both sides; for a
// batched lookup the reference lacks, the reference's plain lookup of the
// same repetition, which moves with the machine as the batch does (on
// absolute figures, A/A pairs of the same code read as large changes of
// shardcache's batch: commit 6efa891), if both sides have it with as
// many repetitions. A measurement not in the map (the reference,
// an Absolute adapter, another phase the reference lacks) is compared on
// absolute figures.
func refPhases(oldM, newM map[Key]report.Measurement, common []Key, opt Options) map[Key]report.Phase {
	has := func(k Key, phase report.Phase, pairedWith bool) bool {
		r := Key{opt.Normalize, k.Workload, phase, k.Procs, k.Keys, k.Rate}
		o, ok1 := oldM[r]
		n, ok2 := newM[r]
		if !ok1 || !ok2 {
			return false
		}
		return !pairedWith || len(o.Samples) == len(oldM[k].Samples) && len(n.Samples) == len(newM[k].Samples)
	}
	out := make(map[Key]report.Phase, len(common))
	for _, k := range common {
		switch {
		case k.Adapter == opt.Normalize || slices.Contains(opt.Absolute, k.Adapter):
		case has(k, k.Phase, false):
			out[k] = k.Phase
		case k.Phase == report.PhaseLookupBatch && has(k, report.PhaseLookup, true):
			out[k] = report.PhaseLookup
		}
	}
	return out
}

// normalize divides, for every measurement refs names, each statistical
// metric of each sample by the reference adapter's value in the sample
// with the same index in the same workload, procs and keys, in the phase
// refs gives.
func normalize(ms map[Key]report.Measurement, common []Key, refs map[Key]report.Phase, opt Options, side string) (map[Key]map[report.Metric][]float64, error) {
	found := false
	for k := range ms {
		if k.Adapter == opt.Normalize {
			found = true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("%w: %s has no measurement of reference adapter %q", ErrNoReference, side, opt.Normalize)
	}
	out := make(map[Key]map[report.Metric][]float64, len(common))
	for _, k := range common {
		phase, ok := refs[k]
		if !ok {
			continue // compared on absolute figures (see Compare), and the header says so
		}
		ref := ms[Key{opt.Normalize, k.Workload, phase, k.Procs, k.Keys, k.Rate}]
		m := ms[k]
		if len(ref.Samples) != len(m.Samples) {
			return nil, fmt.Errorf("%w %s: %s has %d samples of it and %d of reference %q's %s phase; samples are paired by repetition",
				ErrNoReference, k, side, len(m.Samples), len(ref.Samples), opt.Normalize, phase)
		}
		vals := map[report.Metric][]float64{}
		for _, spec := range opt.Metrics {
			if spec.Exact {
				continue
			}
			var xs []float64
			for i, s := range m.Samples {
				v, ok := s.Value(spec.Metric)
				r, rok := ref.Samples[i].Value(spec.Metric)
				if !ok || !rok {
					continue
				}
				if r == 0 || math.IsNaN(r) || math.IsInf(r, 0) {
					return nil, fmt.Errorf("%w %s: %s reference %q has %s = %v in repetition %d of its %s phase",
						ErrNoReference, k, side, opt.Normalize, spec.Metric, r, i+1, phase)
				}
				xs = append(xs, v/r)
			}
			vals[spec.Metric] = xs
		}
		out[k] = vals
	}
	return out, nil
}

// compareValues compares one metric's values.
func compareValues(spec MetricSpec, ov, nv []float64, opt Options) Row {
	alpha, spreadFactor := opt.Alpha, opt.SpreadFactor
	row := Row{Metric: spec.Metric, Exact: spec.Exact, P: math.NaN()}
	if spec.Exact {
		row.Old, row.New = meanSide(ov), meanSide(nv)
		diff := row.New.Center - row.Old.Center
		noise := floatNoise * math.Max(math.Abs(row.Old.Center), math.Abs(row.New.Center))
		// A count that is deterministic repeats exactly within a run, so
		// its spread is 0 and the comparison is exact. Some are not quite
		// (sync.Map's allocations depend on the per-process hash seed;
		// the runtime allocates in the background during the first
		// repetition): a mean cannot be held more exactly than the
		// values it averages vary within one run.
		spread := math.Max(row.Old.Max-row.Old.Min, row.New.Max-row.New.Min)
		row.Delta = relDelta(row.Old.Center, row.New.Center)
		rel := opt.ExactRelTolerance * math.Max(math.Abs(row.Old.Center), math.Abs(row.New.Center))
		switch {
		case math.Abs(diff) <= spec.Threshold+spread+noise+rel:
			row.Verdict = Same
		case worse(spec.Better, diff):
			row.Verdict = Regression
		default:
			row.Verdict = Improvement
		}
		return row
	}
	thr := &benchmath.Thresholds{CompareAlpha: alpha}
	// NewSample sorts in place; the caller's slices stay as they are.
	s1 := benchmath.NewSample(append([]float64(nil), ov...), thr)
	s2 := benchmath.NewSample(append([]float64(nil), nv...), thr)
	c := benchmath.AssumeNothing.Compare(s1, s2)
	for _, w := range c.Warnings {
		row.Warnings = append(row.Warnings, w.Error())
	}
	row.P = c.P
	row.Old = medianSide(s1.Values)
	row.New = medianSide(s2.Values)
	row.Delta = relDelta(row.Old.Center, row.New.Center)
	row.MinEffect = spec.Threshold
	if spreadFactor > 0 {
		row.MinEffect = math.Max(row.MinEffect, spreadFactor*math.Max(relSpread(s1.Values), relSpread(s2.Values)))
	}
	if !(c.P < c.Alpha) {
		row.Verdict = Same
		return row
	}
	// The effect is judged on the cost ratio (new/old for lower-is-better,
	// old/new for higher-is-better) in log space, so that a 25% slowdown
	// reads the same in ns/op (+25%) and in ops/s (-20%).
	cost := row.New.Center / row.Old.Center
	if spec.Better == HigherIsBetter {
		cost = row.Old.Center / row.New.Center
	}
	switch {
	case math.IsNaN(cost):
		row.Verdict = Same
	case math.Abs(math.Log(cost)) <= math.Log1p(row.MinEffect):
		row.Verdict = Small
	case cost > 1:
		row.Verdict = Regression
	default:
		row.Verdict = Improvement
	}
	return row
}

func worse(d Direction, diff float64) bool {
	if d == HigherIsBetter {
		return diff < 0
	}
	return diff > 0
}

func relDelta(old, new float64) float64 {
	switch {
	case old == new:
		return 0
	case old == 0:
		return math.NaN()
	}
	return new/old - 1
}

func meanSide(xs []float64) Side {
	s := report.Summarize(xs)
	return Side{N: s.N, Center: s.Mean, Min: s.Min, Max: s.Max}
}

// medianSide summarises sorted values around their median.
func medianSide(sorted []float64) Side {
	s := report.Summarize(sorted)
	return Side{N: s.N, Center: s.Median, Min: s.Min, Max: s.Max}
}

// newFlags lists flag names (wrong-values, errors, lost-entries, ...)
// present in NEW and absent in OLD, per measurement. Counts are ignored:
// a lossy cache loses a different number of entries each run.
func newFlags(oldM, newM map[Key]report.Measurement, common []Key) []string {
	var out []string
	for _, k := range common {
		had := map[report.FlagName]bool{}
		for _, f := range oldM[k].Flags {
			had[f.Name] = true
		}
		for _, f := range newM[k].Flags {
			// An unbounded adapter's mark is its design, not a fault.
			if !had[f.Name] && f.Name != report.FlagUnbounded {
				had[f.Name] = true
				out = append(out, fmt.Sprintf("%s: %s", k, f))
			}
		}
	}
	return out
}

func newErrors(oldErrs, newErrs []report.Failure) []string {
	had := map[string]bool{}
	for _, e := range oldErrs {
		had[e.Key()] = true
	}
	var out []string
	for _, e := range newErrs {
		if !had[e.Key()] {
			had[e.Key()] = true
			out = append(out, e.String())
		}
	}
	return out
}

// machines describes how OLD's and NEW's machines differ, and how to read
// a comparison across them; "" when they look alike or a side does not
// say (a gobench file without its cpu line).
func machines(o, n report.Env, normalize string) string {
	describe := func(e report.Env) string {
		d := e.CPUModel
		if e.LogicalCores > 0 {
			d += fmt.Sprintf(", %d logical cores", e.LogicalCores)
		}
		if e.GOOS != "" || e.GOARCH != "" {
			d += ", " + e.GOOS + "/" + e.GOARCH
		}
		return d
	}
	if o.CPUModel == "" || n.CPUModel == "" || describe(o) == describe(n) {
		return ""
	}
	read := "allocs/op and B/op do not depend on the machine; absolute times and rates compare the machines as much as the code, " +
		"so compare them with --normalize ADAPTER (ratios to an adapter of the same run), or re-run OLD on NEW's machine"
	if normalize != "" {
		read = "allocs/op and B/op do not depend on the machine; times and rates here are ratios to " + normalize +
			" in the same repetition, which cancels a machine's overall speed but not its cache sizes and memory latency, " +
			"which move adapters differently: a change of a few tens of percent can be the machine"
	}
	return "OLD ran on " + describe(o) + ", NEW on " + describe(n) + ": " + read + "."
}
