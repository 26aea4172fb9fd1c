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
// Imports: report only; the compare command and tests import it.
// Failures are matched by report.Failure.Key (adapter, workload, procs and
// code), never by their message, which holds temporary paths.
package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/cachebench/cachebench/internal/report"
)

// Direction says which way a metric improves.
type Direction int

// Directions.
const (
	LowerIsBetter Direction = iota
	HigherIsBetter
)

// MetricSpec says how one metric is compared.
type MetricSpec struct {
	Metric report.Metric
	Better Direction
	// Exact metrics are deterministic counts: their means are compared
	// directly, without a significance test, and any difference beyond
	// float rounding is a change, unless it is within Threshold (an
	// absolute amount in the metric's unit) plus the spread (max - min)
	// of the values within either run, for counts that are not quite
	// deterministic. They are never normalised.
	Exact bool
	// Threshold is, for a statistical metric, the minimum relative effect
	// (0.05 = 5%) a significant change must have to count; for an exact
	// metric, the absolute tolerance on the mean (0 = exact).
	Threshold float64
}

// Default thresholds (see Options).
const (
	DefaultAlpha      = 0.05
	DefaultThreshold  = 0.05
	DefaultMinSamples = 5
)

// knownMetrics lists the metrics compare understands, with their
// direction and mode. Thresholds are filled in by DefaultMetrics.
var knownMetrics = []MetricSpec{
	{Metric: report.MetricNsPerOp, Better: LowerIsBetter},
	{Metric: report.MetricOpsPerSec, Better: HigherIsBetter},
	{Metric: report.MetricAllocsPerOp, Better: LowerIsBetter, Exact: true},
	{Metric: report.MetricBytesPerOp, Better: LowerIsBetter, Exact: true},
	{Metric: report.MetricP50, Better: LowerIsBetter},
	{Metric: report.MetricP99, Better: LowerIsBetter},
	{Metric: report.MetricP999, Better: LowerIsBetter},
	{Metric: report.MetricHitRatio, Better: HigherIsBetter},
	{Metric: report.MetricHotHitRatio, Better: HigherIsBetter},
	{Metric: report.MetricColdHitRatio, Better: HigherIsBetter},
}

// DefaultMetricNames are the metrics compared unless told otherwise.
var DefaultMetricNames = []report.Metric{
	report.MetricNsPerOp, report.MetricOpsPerSec, report.MetricAllocsPerOp, report.MetricBytesPerOp,
}

// KnownMetrics returns the names of every metric compare can compare.
func KnownMetrics() []string {
	out := make([]string, len(knownMetrics))
	for i, s := range knownMetrics {
		out[i] = string(s.Metric)
	}
	return out
}

// Spec returns the comparison rule of metric with the default threshold
// (DefaultThreshold for statistical metrics, exact for counts).
func Spec(metric report.Metric) (MetricSpec, error) {
	for _, s := range knownMetrics {
		if s.Metric == metric {
			if !s.Exact {
				s.Threshold = DefaultThreshold
			}
			return s, nil
		}
	}
	return MetricSpec{}, fmt.Errorf("unknown metric %q (valid: %s)", metric, strings.Join(KnownMetrics(), ", "))
}

// Options configures a comparison.
type Options struct {
	// Alpha is the significance level of the U test (default 0.05).
	Alpha float64
	// MinSamples is the fewest repetitions a measurement may have on
	// either side; fewer is an input error, since the U test cannot
	// reach significance with too few (5 per side is the minimum for
	// alpha 0.05; 10 is recommended for gating).
	MinSamples int
	// Metrics lists what is compared, in table order.
	Metrics []MetricSpec
	// Normalize names a reference adapter; when set, every statistical
	// metric of every other adapter is divided, sample by sample, by the
	// reference's value in the same repetition of the same run.
	Normalize string
	// Absolute lists adapters compared on absolute figures even when
	// Normalize is set: the harness-floor probe, whose time is the CPU's
	// alone. Divided by a memory-bound reference it would take on the
	// reference's drift (on the development machine most A/A false
	// alarms of the gate were the floor's row).
	Absolute []string
	// SpreadFactor, when positive, raises a noisy metric's minimum effect
	// to SpreadFactor × the larger relative spread of the two sides
	// (2 × interquartile range / median within one run) when that is
	// above the metric's threshold: a difference the runs' own
	// repetitions span is not called a change.
	SpreadFactor float64
	// ExactRelTolerance is a relative tolerance added to the exact
	// metrics' (allocs/op, B/op) thresholds: some adapters' allocation
	// counts differ slightly from process to process (ristretto's by
	// 0.1–2.5%) though each is constant within a run.
	ExactRelTolerance float64
	// Rule, when set, is how the options were chosen, printed with the
	// comparison (e.g. which defaults applied).
	Rule string
}

// DefaultExactRelTolerance is the ExactRelTolerance of the default rule.
const DefaultExactRelTolerance = 0.05

// DefaultReference is the reference adapter compare normalises to by
// default when both results hold it: its hash has no per-process seed
// and its memory is off-heap, so its times move with the machine and
// little else.
const DefaultReference = "fastcache"

// DefaultSpreadFactor is the default Options.SpreadFactor.
const DefaultSpreadFactor = 1.0

// AutoNormalize as Options.Normalize, and a negative SpreadFactor, ask
// Compare for the defaults that keep a first comparison of two runs of the
// same code quiet: normalise to DefaultReference when both results hold
// it, and raise the minimum effect to the runs' own spread. Two
// back-to-back runs of one binary differ by more than 5% in many figures
// (process layout, a busy machine), which a fixed 5% minimum effect
// reported as regressions.
const AutoNormalize = "auto"

// resolveDefaults replaces the AutoNormalize and negative SpreadFactor
// requests by what they mean for these two results, and says in Rule
// which rule applied.
func resolveDefaults(opt Options, oldRes, newRes *report.Result) Options {
	var rule []string
	if opt.Normalize == AutoNormalize {
		opt.Normalize = ""
		if HasAdapter(oldRes, DefaultReference) && HasAdapter(newRes, DefaultReference) {
			opt.Normalize = DefaultReference
			rule = append(rule, "times and rates normalised to "+DefaultReference+" (present in both runs; batched lookups to its lookup, other phases it lacks on absolute figures)")
		} else {
			rule = append(rule, "absolute times ("+DefaultReference+", the default reference, is not in both runs)")
		}
	}
	if opt.SpreadFactor < 0 {
		opt.SpreadFactor = DefaultSpreadFactor
		opt.ExactRelTolerance = DefaultExactRelTolerance
		rule = append(rule, "minimum effect raised to the runs' own spread", "allocs/op and B/op within 5%")
	}
	switch {
	case opt.Rule != "":
	case len(rule) > 0:
		opt.Rule = "defaults: " + strings.Join(rule, "; ") + " (--threshold, --normalize or --spread-factor choose otherwise)"
	default:
		opt.Rule = "as set on the command line"
	}
	if opt.Normalize != "" {
		var abs []string
		for _, a := range opt.Absolute {
			if a != opt.Normalize && HasAdapter(oldRes, a) && HasAdapter(newRes, a) {
				abs = append(abs, a)
			}
		}
		if len(abs) > 0 {
			opt.Rule += "; " + strings.Join(abs, ", ") + " compared on absolute figures (a probe of the harness's own cost: its time does not move with the reference's)"
		}
	}
	return opt
}

// HasAdapter reports whether r holds measurements of adapter.
func HasAdapter(r *report.Result, adapter string) bool {
	for _, m := range r.Measurements {
		if m.Adapter == adapter {
			return true
		}
	}
	return false
}

// DefaultOptions returns the defaults: alpha 0.05, at least 5
// samples, ns/op and ops/s with a 5% minimum effect, allocs/op and B/op
// exact.
func DefaultOptions() Options {
	o := Options{Alpha: DefaultAlpha, MinSamples: DefaultMinSamples}
	for _, m := range DefaultMetricNames {
		s, _ := Spec(m)
		o.Metrics = append(o.Metrics, s)
	}
	return o
}

// Key identifies one measurement across two results.
type Key struct {
	Adapter  string `json:"adapter"`
	Workload string `json:"workload"`
	Phase    string `json:"phase"`
	Procs    int    `json:"procs"`
	Keys     int    `json:"keys"`
}

func keyOf(m report.Measurement) Key {
	return Key{m.Adapter, m.Workload, m.Phase, m.Procs, m.Keys}
}

// String renders k as adapter/workload/phase/keys-procs.
func (k Key) String() string {
	return fmt.Sprintf("%s %s/%s keys=%d procs=%d", k.Adapter, k.Workload, k.Phase, k.Keys, k.Procs)
}

// Verdict is the outcome of one row.
type Verdict string

// Verdicts.
const (
	// Same: no significant difference (shown as "~"), or an exact metric
	// within its tolerance.
	Same Verdict = "same"
	// Small: significant, but smaller than the minimum effect.
	Small Verdict = "below-threshold"
	// Improvement: significant and beyond the threshold, in the better
	// direction.
	Improvement Verdict = "improvement"
	// Regression: significant and beyond the threshold, in the worse
	// direction.
	Regression Verdict = "regression"
)

// Side summarises one side of a row.
type Side struct {
	// N is the number of values compared.
	N int `json:"n"`
	// Center is the median for statistical metrics (what the U test
	// compares) and the mean for exact ones.
	Center float64 `json:"center"`
	// Min and Max bound the values.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// relSpread is how far one run's repetitions span, robustly: twice the
// interquartile range over the median (about the range of five normal
// samples, but not moved by one outlier). sorted must be sorted.
func relSpread(sorted []float64) float64 {
	n := len(sorted)
	if n < 2 {
		return 0
	}
	q := func(p float64) float64 { // linear interpolation between ranks
		x := p * float64(n-1)
		i := int(x)
		if i+1 >= n {
			return sorted[n-1]
		}
		return sorted[i] + (x-float64(i))*(sorted[i+1]-sorted[i])
	}
	med := q(0.5)
	if med == 0 || math.IsNaN(med) {
		return 0
	}
	return 2 * (q(0.75) - q(0.25)) / math.Abs(med)
}

// Row is one measurement and metric compared.
type Row struct {
	Key    Key           `json:"key"`
	Metric report.Metric `json:"metric"`
	// Normalized is true when the values are ratios to the reference
	// adapter (Options.Normalize).
	Normalized bool `json:"normalized,omitempty"`
	Exact      bool `json:"exact,omitempty"`
	Old        Side `json:"old"`
	New        Side `json:"new"`
	// Delta is new/old - 1 of the centers; NaN when old is 0 and new is
	// not.
	Delta float64 `json:"-"`
	// P is the U test's p-value; NaN for exact metrics.
	P float64 `json:"-"`
	// MinEffect is the minimum effect applied to this row: the metric's
	// threshold, or more where the runs' own spread is wider
	// (Options.SpreadFactor).
	MinEffect float64 `json:"min_effect,omitempty"`
	Verdict   Verdict `json:"verdict"`
	// Warnings are benchmath's remarks (e.g. too few samples to ever be
	// significant).
	Warnings []string `json:"warnings,omitempty"`
}

// Report is the outcome of a comparison.
type Report struct {
	Options Options `json:"-"`
	// OldName and NewName label the two sides in rendered output (file
	// names); Compare leaves them empty.
	OldName string `json:"old_name,omitempty"`
	NewName string `json:"new_name,omitempty"`
	Rows    []Row  `json:"rows"`
	// OnlyOld and OnlyNew list measurements present on one side only.
	OnlyOld []Key `json:"only_old,omitempty"`
	OnlyNew []Key `json:"only_new,omitempty"`
	// NewFlags lists problems flagged in NEW that OLD did not have for
	// the same measurement (wrong values, errors, lost entries): each is
	// a regression, since a cache that now returns wrong data is worse
	// however fast it is.
	NewFlags []string `json:"new_flags,omitempty"`
	// NewErrors lists adapter failures recorded in NEW and not in OLD;
	// each is a regression.
	NewErrors []string `json:"new_errors,omitempty"`
}

// Regressions counts the regressions: rows, new flags and new errors.
func (r *Report) Regressions() int {
	n := len(r.NewFlags) + len(r.NewErrors)
	for _, row := range r.Rows {
		if row.Verdict == Regression {
			n++
		}
	}
	return n
}

// Improvements counts the rows that improved.
func (r *Report) Improvements() int {
	n := 0
	for _, row := range r.Rows {
		if row.Verdict == Improvement {
			n++
		}
	}
	return n
}

// RegressionError is returned by a gate when a comparison found
// regressions; ExitCode makes the CLI exit with 1, which CI reads as
// "slower", distinct from 2 (bad input).
type RegressionError struct{ N int }

func (e *RegressionError) Error() string {
	if e.N == 1 {
		return "1 regression"
	}
	return fmt.Sprintf("%d regressions", e.N)
}

// ExitCode returns 1.
func (e *RegressionError) ExitCode() int { return 1 }

// Input errors: a comparison that cannot be made. Callers answer them
// with the bad-input exit code.
var (
	// ErrNothingInCommon: OLD and NEW share no measurement.
	ErrNothingInCommon = errors.New("nothing in common between OLD and NEW")
	// ErrTooFewSamples: a measurement has fewer repetitions than
	// Options.MinSamples.
	ErrTooFewSamples = errors.New("too few samples")
	// ErrNoReference: the reference adapter of --normalize is missing or
	// unusable for some measurement.
	ErrNoReference = errors.New("cannot normalise")
	// ErrOptions: the options are invalid.
	ErrOptions = errors.New("invalid options")
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
		return compareGCPause(oldRes, newRes, opt) // see gcpause.go
	}
	oldM, newM := index(oldRes), index(newRes)
	rep := &Report{Options: opt}
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
	case opt.MinSamples < 2:
		return fmt.Errorf("%w: minimum samples %d must be at least 2", ErrOptions, opt.MinSamples)
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
// absolute figures, two runs of the same code read as a 55% change of
// shardcache's batch on the development machine), if both sides have it
// with as many repetitions. A measurement not in the map (the reference,
// an Absolute adapter, another phase the reference lacks) is compared on
// absolute figures.
func refPhases(oldM, newM map[Key]report.Measurement, common []Key, opt Options) map[Key]string {
	has := func(k Key, phase string, pairedWith bool) bool {
		r := Key{opt.Normalize, k.Workload, phase, k.Procs, k.Keys}
		o, ok1 := oldM[r]
		n, ok2 := newM[r]
		if !ok1 || !ok2 {
			return false
		}
		return !pairedWith || len(o.Samples) == len(oldM[k].Samples) && len(n.Samples) == len(newM[k].Samples)
	}
	out := make(map[Key]string, len(common))
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
func normalize(ms map[Key]report.Measurement, common []Key, refs map[Key]string, opt Options, side string) (map[Key]map[report.Metric][]float64, error) {
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
		ref := ms[Key{opt.Normalize, k.Workload, phase, k.Procs, k.Keys}]
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
			if !had[f.Name] {
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
