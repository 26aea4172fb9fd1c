package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/report"
)

// synth describes one adapter in a synthetic run.
type synth struct {
	adapter string
	ns      float64 // true ns/op
	allocs  float64 // allocs/op
	bytes   float64 // B/op
}

// run makes a synthetic result: count interleaved repetitions of two
// phases for every adapter. Each sample is the adapter's true time times
// a machine factor shared by all adapters in that repetition (the shared
// CI machine getting busier and quieter) times its own noise, both
// log-normal with the given relative spreads, plus a rare 2× outlier.
func run(rng *rand.Rand, count int, machine, noise float64, adapters ...synth) *report.Result {
	res := &report.Result{Schema: report.SchemaVersion, Tool: "cachebench", Kind: report.KindRun}
	for _, phase := range []report.Phase{report.PhaseInsert, report.PhaseLookup} {
		ms := make([]report.Measurement, len(adapters))
		for i, a := range adapters {
			ms[i] = report.Measurement{Adapter: a.adapter, Workload: "insert-lookup", Phase: phase, Procs: 1, Keys: 100000}
		}
		for rep := 0; rep < count; rep++ {
			f := math.Exp(rng.NormFloat64() * machine)
			for i, a := range adapters {
				ns := a.ns * f * math.Exp(rng.NormFloat64()*noise)
				if rng.IntN(50) == 0 {
					ns *= 2
				}
				ms[i].Samples = append(ms[i].Samples, report.Sample{
					Ops: 100000, NsPerOp: ns, OpsPerSec: 1e9 / ns,
					AllocsPerOp: a.allocs, BytesPerOp: a.bytes, HitRatio: -1, HotHitRatio: -1, ColdHitRatio: -1,
				})
			}
		}
		res.Measurements = append(res.Measurements, ms...)
	}
	return res
}

var (
	base = []synth{{"map", 250, 0, 0}, {"fastcache", 600, 0.06, 49.5}, {"syncmap", 650, 5.4, 180}}
)

func with(s []synth, adapter string, f func(*synth)) []synth {
	out := append([]synth(nil), s...)
	for i := range out {
		if out[i].adapter == adapter {
			f(&out[i])
		}
	}
	return out
}

func mustCompare(t *testing.T, o, n *report.Result, opt Options) *Report {
	t.Helper()
	rep, err := Compare(o, n, opt)
	if err != nil {
		t.Fatalf("Compare: %v", err)
	}
	return rep
}

func verdicts(rep *Report, adapter string, metric report.Metric) []Verdict {
	var out []Verdict
	for _, r := range rep.Rows {
		if r.Key.Adapter == adapter && r.Metric == metric {
			out = append(out, r.Verdict)
		}
	}
	return out
}

func allAre(vs []Verdict, want Verdict) bool {
	if len(vs) == 0 {
		return false
	}
	for _, v := range vs {
		if v != want {
			return false
		}
	}
	return true
}

func ciOptions() Options {
	o := DefaultOptions()
	o.MinSamples = 10
	for i := range o.Metrics {
		if !o.Metrics[i].Exact {
			o.Metrics[i].Threshold = 0.20
		}
	}
	return o
}

// TestAAPasses: two runs drawn from the same distributions must not read
// as a regression. A false alarm needs both a significant U test and a
// median shift beyond the minimum effect, so the minimum effect must sit
// well above the spread of a median of 10 samples: 5% against 2%
// per-sample noise (defaults), 20% against 10% noise (the CI gate).
// Each trial makes 12 statistical comparisons (3 adapters, 2 phases,
// ns/op and ops/s), which is why a larger spread with a 5% threshold
// does raise alarms (about 8% of trials at 5% noise).
func TestAAPasses(t *testing.T) {
	for _, c := range []struct {
		name  string
		noise float64
		opt   Options
	}{{"defaults", 0.02, DefaultOptions()}, {"ci", 0.10, ciOptions()}} {
		alarms := 0
		for seed := range uint64(200) {
			rng := rand.New(rand.NewPCG(seed, 1))
			o, n := run(rng, 10, 0, c.noise, base...), run(rng, 10, 0, c.noise, base...)
			if mustCompare(t, o, n, c.opt).Regressions() > 0 {
				alarms++
			}
		}
		if alarms > 2 {
			t.Errorf("A/A %s, noise %v: %d of 200 trials reported a regression", c.name, c.noise, alarms)
		}
	}
}

func TestSlowdownIsRegression(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 2))
		o := run(rng, 10, 0, 0.05, base...)
		n := run(rng, 10, 0, 0.05, with(base, "fastcache", func(s *synth) { s.ns *= 1.25 })...)
		rep := mustCompare(t, o, n, DefaultOptions())
		if v := verdicts(rep, "fastcache", report.MetricNsPerOp); !allAre(v, Regression) {
			t.Fatalf("seed %d: fastcache ns/op verdicts %v, want regression", seed, v)
		}
		// ops/s falls by 20%: the better direction is reversed.
		if v := verdicts(rep, "fastcache", report.MetricOpsPerSec); !allAre(v, Regression) {
			t.Fatalf("seed %d: fastcache ops/s verdicts %v, want regression", seed, v)
		}
		if v := verdicts(rep, "map", report.MetricNsPerOp); allAre(v, Regression) {
			t.Fatalf("seed %d: map reported slower, but only fastcache changed", seed)
		}
	}
}

func TestExtraAllocationIsRegression(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	o := run(rng, 10, 0, 0.05, base...)
	n := run(rng, 10, 0, 0.05, with(base, "map", func(s *synth) { s.allocs++; s.bytes += 16 })...)
	opt := DefaultOptions()
	rep := mustCompare(t, o, n, opt)
	if v := verdicts(rep, "map", report.MetricAllocsPerOp); !allAre(v, Regression) {
		t.Fatalf("allocs/op verdicts %v, want regression", v)
	}
	if v := verdicts(rep, "map", report.MetricBytesPerOp); !allAre(v, Regression) {
		t.Fatalf("B/op verdicts %v, want regression", v)
	}
	if v := verdicts(rep, "syncmap", report.MetricAllocsPerOp); !allAre(v, Same) {
		t.Fatalf("syncmap allocs/op verdicts %v, want same", v)
	}
	// The CI gate's tolerance absorbs runtime background allocations, not
	// a whole allocation per op.
	for i := range opt.Metrics {
		if opt.Metrics[i].Metric == report.MetricAllocsPerOp {
			opt.Metrics[i].Threshold = 0.05
		}
	}
	if v := verdicts(mustCompare(t, o, n, opt), "map", report.MetricAllocsPerOp); !allAre(v, Regression) {
		t.Fatalf("with tolerance 0.05: allocs/op verdicts %v, want regression", v)
	}
}

func TestExactToleranceAndFloatNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	o := run(rng, 10, 0, 0.05, base...)
	n := run(rng, 10, 0, 0.05, base...)
	// Same counts summed in another order: float noise, not a change.
	for i := range n.Measurements {
		for j := range n.Measurements[i].Samples {
			n.Measurements[i].Samples[j].AllocsPerOp *= 1 + 1e-13
		}
	}
	allocsVerdict := func(rep *Report, m report.Measurement) Verdict {
		for _, r := range rep.Rows {
			if r.Key == keyOf(m) && r.Metric == report.MetricAllocsPerOp {
				return r.Verdict
			}
		}
		return ""
	}
	if v := verdicts(mustCompare(t, o, n, DefaultOptions()), "syncmap", report.MetricAllocsPerOp); !allAre(v, Same) {
		t.Fatalf("float noise: verdicts %v, want same", v)
	}
	// One stray allocation in 100,000 ops, in one sample of NEW: the
	// count varies within NEW by as much as the means differ.
	n.Measurements[0].Samples[0].AllocsPerOp += 1e-5
	if v := allocsVerdict(mustCompare(t, o, n, DefaultOptions()), n.Measurements[0]); v != Same {
		t.Fatalf("one stray allocation within the run's spread: %q, want same", v)
	}
	// The same small change in every sample is a deterministic change:
	// exact means exact.
	for j := range n.Measurements[0].Samples {
		n.Measurements[0].Samples[j].AllocsPerOp = o.Measurements[0].Samples[0].AllocsPerOp + 1e-5
	}
	rep := mustCompare(t, o, n, DefaultOptions())
	if v := allocsVerdict(rep, n.Measurements[0]); v != Regression {
		t.Fatalf("exact: 1e-5 more allocs/op in every sample gave %q, want regression", v)
	}
	opt := DefaultOptions()
	for i := range opt.Metrics {
		if opt.Metrics[i].Metric == report.MetricAllocsPerOp {
			opt.Metrics[i].Threshold = 0.01
		}
	}
	if n := mustCompare(t, o, n, opt).Regressions(); n != 0 {
		t.Fatalf("tolerance 0.01: %d regressions, want 0", n)
	}
}

func TestSpeedupIsImprovement(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	o := run(rng, 10, 0, 0.05, base...)
	n := run(rng, 10, 0, 0.05, with(base, "syncmap", func(s *synth) { s.ns *= 0.7; s.allocs -= 1 })...)
	rep := mustCompare(t, o, n, DefaultOptions())
	if rep.Regressions() != 0 {
		t.Fatalf("speed-up: %d regressions", rep.Regressions())
	}
	for _, m := range []report.Metric{report.MetricNsPerOp, report.MetricOpsPerSec, report.MetricAllocsPerOp} {
		if v := verdicts(rep, "syncmap", m); !allAre(v, Improvement) {
			t.Fatalf("%s verdicts %v, want improvement", m, v)
		}
	}
}

func TestSmallSignificantChangeIsBelowThreshold(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	o := run(rng, 10, 0, 0.005, base...)
	n := run(rng, 10, 0, 0.005, with(base, "map", func(s *synth) { s.ns *= 1.03 })...)
	rep := mustCompare(t, o, n, DefaultOptions())
	if v := verdicts(rep, "map", report.MetricNsPerOp); !allAre(v, Small) {
		t.Fatalf("3%% slower with 0.5%% noise: verdicts %v, want below threshold", v)
	}
	if rep.Regressions() != 0 {
		t.Fatalf("%d regressions for a change under the minimum effect", rep.Regressions())
	}
}

// TestThresholdIsSymmetric: a 25% slowdown is +25% in ns/op and -20% in
// ops/s; the effect is judged on the cost ratio, so a 22% minimum effect
// flags both.
func TestThresholdIsSymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	o := run(rng, 10, 0, 0.01, base...)
	n := run(rng, 10, 0, 0.01, with(base, "fastcache", func(s *synth) { s.ns *= 1.25 })...)
	opt := DefaultOptions()
	for i := range opt.Metrics {
		if !opt.Metrics[i].Exact {
			opt.Metrics[i].Threshold = 0.22
		}
	}
	rep := mustCompare(t, o, n, opt)
	for _, m := range []report.Metric{report.MetricNsPerOp, report.MetricOpsPerSec} {
		if v := verdicts(rep, "fastcache", m); !allAre(v, Regression) {
			t.Errorf("%s verdicts %v, want regression", m, v)
		}
	}
}

// TestNormalize: a machine 40% slower across the board is a regression in
// absolute times and not in ratios to the reference; a real 25% slowdown
// of one adapter on that slower machine is still caught.
func TestNormalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	slowMachine := func(s []synth) []synth {
		out := append([]synth(nil), s...)
		for i := range out {
			out[i].ns *= 1.4
		}
		return out
	}
	o := run(rng, 10, 0, 0.02, base...)
	n := run(rng, 10, 0, 0.02, slowMachine(base)...)
	if mustCompare(t, o, n, ciOptions()).Regressions() == 0 {
		t.Fatal("absolute times: a 40% slower machine should read as a regression")
	}
	opt := ciOptions()
	opt.Normalize = "map"
	rep := mustCompare(t, o, n, opt)
	if rep.Regressions() != 0 {
		t.Fatalf("normalised: %d regressions on a uniformly slower machine", rep.Regressions())
	}
	for _, r := range rep.Rows {
		if r.Key.Adapter == "map" && !r.Exact {
			t.Fatalf("reference adapter compared to itself: %+v", r)
		}
		if r.Key.Adapter != "map" && r.Normalized == r.Exact {
			t.Fatalf("row %s %s: normalized=%v exact=%v", r.Key, r.Metric, r.Normalized, r.Exact)
		}
	}
	n = run(rng, 10, 0, 0.02, slowMachine(with(base, "fastcache", func(s *synth) { s.ns *= 1.25 }))...)
	rep = mustCompare(t, o, n, opt)
	if v := verdicts(rep, "fastcache", report.MetricNsPerOp); !allAre(v, Regression) {
		t.Fatalf("normalised 25%% slowdown: verdicts %v, want regression", v)
	}
	if v := verdicts(rep, "syncmap", report.MetricNsPerOp); allAre(v, Regression) {
		t.Fatal("normalised: syncmap reported slower")
	}
}

// TestAbsoluteAdapterIsNotNormalised: on a machine whose memory is 40%
// slower and whose CPU is not, the harness-floor probe's time is
// unchanged. Divided by the reference it would read 29% faster; listed in
// Options.Absolute it is compared on its own figures, and the rule says so.
func TestAbsoluteAdapterIsNotNormalised(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	floor := synth{"null", 10, 0, 0}
	slow := append([]synth(nil), base...)
	for i := range slow {
		slow[i].ns *= 1.4
	}
	o := run(rng, 10, 0, 0.02, append([]synth{floor}, base...)...)
	n := run(rng, 10, 0, 0.02, append([]synth{floor}, slow...)...)
	opt := ciOptions()
	opt.Normalize = "map"
	if v := verdicts(mustCompare(t, o, n, opt), "null", report.MetricNsPerOp); !allAre(v, Improvement) {
		t.Fatalf("normalised floor: verdicts %v, want improvement (the check of this test's premise)", v)
	}
	opt.Absolute = []string{"null"}
	rep := mustCompare(t, o, n, opt)
	if v := verdicts(rep, "null", report.MetricNsPerOp); len(v) == 0 || slices.Contains(v, Improvement) || slices.Contains(v, Regression) {
		t.Fatalf("absolute floor: verdicts %v, want no change", v)
	}
	for _, r := range rep.Rows {
		if r.Key.Adapter == "null" && (r.Normalized || r.Metric == report.MetricNsPerOp && math.Abs(r.Old.Center-10) > 1) {
			t.Fatalf("floor row %s %s: normalized %v, old centre %v", r.Key, r.Metric, r.Normalized, r.Old.Center)
		}
	}
	if !strings.Contains(rep.Options.Rule, "null compared on absolute figures") {
		t.Fatalf("rule %q does not name the absolute adapter", rep.Options.Rule)
	}
}

// TestReferencePhaseIsChosenOnceForBothSides: the reference phase a
// measurement is divided by is the same for OLD and NEW, and a case that
// cannot be paired falls back to absolute figures instead of failing.
func TestReferencePhaseIsChosenOnceForBothSides(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	// addPhase copies adapter's lookup measurement as phase ph, its
	// figures scaled by f.
	addPhase := func(r *report.Result, adapter string, ph report.Phase, f float64) *report.Result {
		for _, m := range r.Measurements {
			if m.Adapter == adapter && m.Phase == report.PhaseLookup {
				m.Phase = ph
				m.Samples = slices.Clone(m.Samples)
				for i := range m.Samples {
					m.Samples[i].NsPerOp *= f
					m.Samples[i].OpsPerSec /= f
				}
				r.Measurements = append(r.Measurements, m)
				return r
			}
		}
		t.Fatalf("no lookup of %s", adapter)
		return nil
	}
	opt := ciOptions()
	opt.Normalize = "fastcache"
	batchRow := func(rep *Report) Row {
		for _, r := range rep.Rows {
			if r.Key.Adapter == "map" && r.Key.Phase == report.PhaseLookupBatch && r.Metric == report.MetricNsPerOp {
				return r
			}
		}
		t.Fatal("no batch row for map")
		return Row{}
	}

	// map's batch is half its lookup; fastcache's lookup is the
	// reference's phase both sides have, so both are divided by it.
	want := 0.5 * nsOf(base, "map") / nsOf(base, "fastcache")
	check := func(name string, r Row) {
		t.Helper()
		if !r.Normalized || math.Abs(r.Old.Center/want-1) > 0.1 || math.Abs(r.New.Center/want-1) > 0.1 ||
			r.Verdict == Regression || r.Verdict == Improvement {
			t.Fatalf("%s: want both sides about %v: %+v", name, want, r)
		}
	}
	// The reference has a batch phase in OLD only (it would divide OLD
	// by 0.2 of fastcache's lookup): its lookup is used on both sides.
	o := addPhase(addPhase(run(rng, 10, 0, 0.02, base...), "map", report.PhaseLookupBatch, 0.5), "fastcache", report.PhaseLookupBatch, 0.2)
	n := addPhase(run(rng, 10, 0, 0.02, base...), "map", report.PhaseLookupBatch, 0.5)
	check("reference batch in OLD only", batchRow(mustCompare(t, o, n, opt)))
	// Neither side's reference has a batch.
	o = addPhase(run(rng, 10, 0, 0.02, base...), "map", report.PhaseLookupBatch, 0.5)
	n = addPhase(run(rng, 10, 0, 0.02, base...), "map", report.PhaseLookupBatch, 0.5)
	check("no reference batch", batchRow(mustCompare(t, o, n, opt)))

	// A batch with fewer repetitions than the reference's lookup, and an
	// Absolute adapter with fewer than the reference: absolute figures,
	// no error.
	o.Measurements[len(o.Measurements)-1].Samples = o.Measurements[len(o.Measurements)-1].Samples[:9]
	for i, m := range o.Measurements {
		if m.Adapter == "syncmap" {
			o.Measurements[i].Samples = m.Samples[:9]
		}
	}
	opt.Absolute = []string{"syncmap"}
	opt.MinSamples = 5
	rep, err := Compare(o, n, opt)
	if err != nil {
		t.Fatalf("unpaired batch and absolute adapter: %v", err)
	}
	if batchRow(rep).Normalized {
		t.Fatal("a batch with fewer repetitions than the reference's lookup was normalised")
	}
}

// nsOf is adapter's true ns/op in synths.
func nsOf(synths []synth, adapter string) float64 {
	for _, s := range synths {
		if s.adapter == adapter {
			return s.ns
		}
	}
	return math.NaN()
}

// TestNormalizeRemovesSharedNoise: when the machine's load swings from
// repetition to repetition (30%) much more than an adapter's own noise
// (2%), pairing each sample with the reference's sample of the same
// repetition cancels the swing, and a 10% slowdown becomes visible.
func TestNormalizeRemovesSharedNoise(t *testing.T) {
	caughtAbs, caughtNorm := 0, 0
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 8))
		o := run(rng, 10, 0.3, 0.02, base...)
		n := run(rng, 10, 0.3, 0.02, with(base, "syncmap", func(s *synth) { s.ns *= 1.10 })...)
		opt := DefaultOptions()
		if allAre(verdicts(mustCompare(t, o, n, opt), "syncmap", report.MetricNsPerOp), Regression) {
			caughtAbs++
		}
		opt.Normalize = "map"
		if allAre(verdicts(mustCompare(t, o, n, opt), "syncmap", report.MetricNsPerOp), Regression) {
			caughtNorm++
		}
	}
	if caughtNorm < 18 || caughtNorm <= caughtAbs {
		t.Errorf("10%% slowdown under 30%% shared noise caught %d/20 normalised, %d/20 absolute", caughtNorm, caughtAbs)
	}
}

func TestInputErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	o := run(rng, 10, 0, 0.05, base...)
	other := run(rng, 10, 0, 0.05, synth{"otter", 900, 0, 0})
	if _, err := Compare(o, other, DefaultOptions()); !errors.Is(err, ErrNothingInCommon) {
		t.Errorf("disjoint: err %v, want ErrNothingInCommon", err)
	}
	few := run(rng, 4, 0, 0.05, base...)
	_, err := Compare(o, few, DefaultOptions())
	if !errors.Is(err, ErrTooFewSamples) || !strings.Contains(err.Error(), "4 new") {
		t.Errorf("4 samples: err %v, want ErrTooFewSamples naming the count", err)
	}
	opt := DefaultOptions()
	opt.Normalize = "otter"
	if _, err := Compare(o, o, opt); !errors.Is(err, ErrNoReference) {
		t.Errorf("missing reference: err %v, want ErrNoReference", err)
	}
	// Samples are paired by repetition: a reference with fewer
	// repetitions than the adapter cannot be paired.
	n := run(rng, 10, 0, 0.05, base...)
	n.Measurements[0].Samples = n.Measurements[0].Samples[:8] // map insert
	opt.Normalize = "map"
	if _, err := Compare(o, n, opt); !errors.Is(err, ErrNoReference) {
		t.Errorf("unpaired reference: err %v, want ErrNoReference", err)
	}
	opt = DefaultOptions()
	opt.Alpha = 0
	if _, err := Compare(o, o, opt); !errors.Is(err, ErrOptions) {
		t.Errorf("alpha 0: err %v, want ErrOptions", err)
	}
}

func TestNewFlagsAndErrorsAreRegressions(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	o := run(rng, 10, 0, 0.05, base...)
	n := run(rng, 10, 0, 0.05, base...)
	o.Measurements[2].Flags = []report.Flag{{Name: report.FlagLostEntries, Count: 10}}
	n.Measurements[2].Flags = []report.Flag{{Name: report.FlagLostEntries, Count: 12}, {Name: report.FlagWrongValues, Count: 3}}
	// The same failure with another temp path is not new; another code is.
	o.Errors = []report.Failure{{Code: report.FailNew, Adapter: "lmdb", Workload: "insert-lookup", Procs: 1, Message: "open /tmp/a1: no space"}}
	n.Errors = []report.Failure{
		{Code: report.FailNew, Adapter: "lmdb", Workload: "insert-lookup", Procs: 1, Message: "open /tmp/b7: no space"},
		{Code: report.FailInsert, Adapter: "otter", Workload: "insert-lookup", Procs: 1, Message: "boom"},
	}
	rep := mustCompare(t, o, n, DefaultOptions())
	if len(rep.NewFlags) != 1 || !strings.Contains(rep.NewFlags[0], "wrong-values:3") {
		t.Errorf("new flags %q, want only wrong-values", rep.NewFlags)
	}
	if len(rep.NewErrors) != 1 || !strings.HasPrefix(rep.NewErrors[0], "otter:") || rep.Regressions() < 2 {
		t.Errorf("new errors %q, regressions %d", rep.NewErrors, rep.Regressions())
	}
}

func TestRender(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	o := run(rng, 10, 0, 0.03, base...)
	n := run(rng, 10, 0, 0.03, with(base, "fastcache", func(s *synth) { s.ns *= 1.5; s.allocs++ })...)
	rep := mustCompare(t, o, n, DefaultOptions())
	rep.OldName, rep.NewName = "old.json", "new.txt"
	for _, f := range Formats {
		var b bytes.Buffer
		if err := Write(&b, rep, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out := b.String()
		if f == "json" {
			var got struct {
				Regressions int `json:"regressions"`
				Rows        []struct {
					Verdict Verdict  `json:"verdict"`
					P       *float64 `json:"p"`
				} `json:"rows"`
			}
			if err := json.Unmarshal(b.Bytes(), &got); err != nil {
				t.Fatalf("json: %v\n%s", err, out)
			}
			if got.Regressions != rep.Regressions() || len(got.Rows) != len(rep.Rows) {
				t.Fatalf("json: %d regressions, %d rows; want %d, %d", got.Regressions, len(got.Rows), rep.Regressions(), len(rep.Rows))
			}
			continue
		}
		for _, want := range []string{"old.json", "new.txt", "REGRESSION", "~", "exact", "p=", "ns/op", "allocs/op", "fastcache"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s output lacks %q:\n%s", f, want, out)
			}
		}
		if f == "markdown" && !strings.Contains(out, "|---|") {
			t.Errorf("markdown output has no table:\n%s", out)
		}
	}
	if err := Write(&bytes.Buffer{}, rep, "xml"); err == nil {
		t.Error("format xml: no error")
	}
}

func TestFmtPairShowsExactDifference(t *testing.T) {
	r := Row{Metric: report.MetricAllocsPerOp, Exact: true}
	a, b := fmtPair(r, 5.38675, 5.38702)
	if a == b {
		t.Fatalf("fmtPair hides a difference: %q %q", a, b)
	}
}

// TestDefaultRule: the defaults a command line without rule flags asks for
// normalise to fastcache when both runs hold it, tolerate a process-level
// wobble of an allocation count, still catch a 30% slowdown, and say so.
func TestDefaultRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	opt := DefaultOptions()
	opt.Normalize, opt.SpreadFactor = AutoNormalize, -1
	// ristretto-like: allocations 0.5% apart between two processes.
	wobble := with(base, "syncmap", func(s *synth) { s.allocs *= 1.005; s.bytes *= 1.005 })
	rep, err := Compare(run(rng, 5, 0.3, 0.02, base...), run(rng, 5, 0.3, 0.02, wobble...), opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Regressions() != 0 || rep.Options.Normalize != DefaultReference || !strings.Contains(rep.Options.Rule, "normalised to fastcache") {
		t.Fatalf("A/A under the default rule: %d regressions, normalize %q, rule %q", rep.Regressions(), rep.Options.Normalize, rep.Options.Rule)
	}
	explicit := DefaultOptions()
	if rep, err := Compare(run(rng, 5, 0, 0.02, base...), run(rng, 5, 0, 0.02, wobble...), explicit); err != nil || rep.Regressions() == 0 {
		t.Fatalf("exact allocations with explicit options: %v, %d regressions", err, rep.Regressions())
	}
	slow := with(base, "map", func(s *synth) { s.ns *= 1.3 })
	rep, err = Compare(run(rng, 10, 0.1, 0.02, base...), run(rng, 10, 0.1, 0.02, slow...), opt)
	if err != nil || rep.Regressions() == 0 {
		t.Fatalf("30%% slowdown under the default rule: %v, %d regressions", err, rep.Regressions())
	}
	// Without the reference in both runs: absolute times, and the rule says so.
	noRef := []synth{{"map", 250, 0, 0}, {"syncmap", 650, 5.4, 180}}
	rep, err = Compare(run(rng, 5, 0, 0.02, noRef...), run(rng, 5, 0, 0.02, noRef...), opt)
	if err != nil || rep.Options.Normalize != "" || !strings.Contains(rep.Options.Rule, "absolute times") {
		t.Fatalf("no reference: %v, normalize %q, rule %q", err, rep.Options.Normalize, rep.Options.Rule)
	}
}

// TestDefaultRulePhaseWithoutReference: a batched lookup, which the
// reference lacks, is normalised to the reference's plain lookup of the
// same repetition; another phase it lacks (a cold pass) is compared on
// absolute figures, under the default rule and with --normalize given,
// instead of refusing the input.
func TestDefaultRulePhaseWithoutReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	withPhases := func(r *report.Result) *report.Result {
		for _, ph := range []report.Phase{report.PhaseLookupBatch, report.PhaseLookupCold} {
			m := r.Measurements[0]
			m.Phase = ph
			r.Measurements = append(r.Measurements, m)
		}
		return r
	}
	oldRes, newRes := withPhases(run(rng, 5, 0, 0.02, base...)), withPhases(run(rng, 5, 0, 0.02, base...))
	opt := DefaultOptions()
	opt.Normalize, opt.SpreadFactor = AutoNormalize, -1
	rep, err := Compare(oldRes, newRes, opt)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[report.Phase]bool{}
	for _, r := range rep.Rows {
		if r.Exact || r.Metric != report.MetricNsPerOp {
			continue
		}
		switch r.Key.Phase {
		case report.PhaseLookupBatch:
			seen[r.Key.Phase] = true
			if !r.Normalized {
				t.Fatalf("batch row not normalised to the reference's lookup: %+v", r)
			}
		case report.PhaseLookupCold:
			seen[r.Key.Phase] = true
			if r.Normalized {
				t.Fatalf("cold row normalised without a reference: %+v", r)
			}
		}
	}
	if !seen[report.PhaseLookupBatch] || !seen[report.PhaseLookupCold] {
		t.Fatalf("phases compared: %v", seen)
	}
	opt.Normalize, opt.SpreadFactor = DefaultReference, 0
	if _, err := Compare(oldRes, newRes, opt); err != nil {
		t.Fatalf("explicit --normalize with a phase the reference lacks: %v", err)
	}
}
