package compare

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/report"
)

// gcSynth is one adapter of a synthetic gc-pause run.
type gcSynth struct {
	adapter        string
	objPerEntry    float64 // heap objects per entry the entries hold
	bytesPerEntry  float64
	forcedGC       float64 // true seconds
	forcedCPU      float64
	wrong, failing bool
}

const synthEntries = 200_000

// gcRun makes count interleaved repetitions: times carry a machine factor
// shared by the repetition and per-child noise; heap figures carry the
// runtime's own few objects and a page of noise.
func gcRun(rng *rand.Rand, count int, machine float64, adapters ...gcSynth) *report.Result {
	res := &report.Result{Schema: report.SchemaVersion, Tool: "cachebench", Kind: report.KindGCPause,
		Env: report.Env{GOMAXPROCS: 2}}
	for rep := 0; rep < count; rep++ {
		f := math.Exp(rng.NormFloat64() * machine)
		for _, a := range adapters {
			p := report.GCPause{Adapter: a.adapter, Entries: synthEntries, ValueSize: 100, GOGC: 10, Repetition: rep,
				BaselineHeapObjects: 1100 + uint64(rng.IntN(20)), BaselineHeapInUseBytes: 600_000 + 8192*uint64(rng.IntN(2))}
			if a.failing {
				p.Error = "child killed by signal killed (the kernel's OOM killer sends SIGKILL: out of memory?)"
				res.GCPause = append(res.GCPause, p)
				continue
			}
			p.HeapObjects = p.BaselineHeapObjects + uint64(a.objPerEntry*synthEntries) + uint64(rng.IntN(30))
			p.HeapInUseBytes = p.BaselineHeapInUseBytes + uint64(a.bytesPerEntry*synthEntries) + 8192*uint64(rng.IntN(3))
			p.ForcedGCSeconds = a.forcedGC * f * math.Exp(rng.NormFloat64()*0.05)
			p.ForcedGCCPUSecond = a.forcedCPU * f * math.Exp(rng.NormFloat64()*0.05)
			p.Verified = 10_000
			if a.wrong {
				p.Wrong, p.Verified = 3, 9_997
			}
			res.GCPause = append(res.GCPause, p)
		}
	}
	return res
}

var gcBase = []gcSynth{
	{adapter: "map", objPerEntry: 2, bytesPerEntry: 210, forcedGC: 0.068, forcedCPU: 0.1},
	{adapter: "fastcache", objPerEntry: 0.013, bytesPerEntry: 0.5, forcedGC: 0.008, forcedCPU: 0.0004},
}

func gcWith(adapter string, f func(*gcSynth)) []gcSynth {
	out := append([]gcSynth(nil), gcBase...)
	for i := range out {
		if out[i].adapter == adapter {
			f(&out[i])
		}
	}
	return out
}

func gcVerdicts(rep *Report) map[string]Verdict {
	out := map[string]Verdict{}
	for _, r := range rep.Rows {
		out[r.Key.Adapter+" "+string(r.Metric)] = r.Verdict
	}
	return out
}

func TestGCPauseSameCodeHasNoRegression(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alarms := 0
	for i := 0; i < 20; i++ {
		rep, err := Compare(gcRun(rng, 10, 0.1, gcBase...), gcRun(rng, 10, 0.1, gcBase...), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Rows) != 8 {
			t.Fatalf("%d rows, want 4 metrics × 2 adapters", len(rep.Rows))
		}
		for _, r := range rep.Rows {
			// The heap figures of unchanged code never alarm; the times
			// may, at the rate alpha and the minimum effect allow.
			if r.Exact && r.Verdict != Same {
				t.Fatalf("pair %d: exact %s of %s is %s: %+v %+v", i, r.Metric, r.Key.Adapter, r.Verdict, r.Old, r.New)
			}
		}
		if rep.Regressions() > 0 {
			alarms++
		}
	}
	if alarms > 2 {
		t.Fatalf("%d of 20 A/A pairs alarmed", alarms)
	}
}

func TestGCPauseHeapPerEntryIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// One more pointer-holding object per entry in map.
	newer := gcWith("map", func(s *gcSynth) { s.objPerEntry++; s.bytesPerEntry += 16 })
	rep, err := Compare(gcRun(rng, 5, 0.05, gcBase...), gcRun(rng, 5, 0.05, newer...), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	v := gcVerdicts(rep)
	if v["map heap-objects/entry"] != Regression || v["map heap-bytes/entry"] != Regression ||
		v["fastcache heap-objects/entry"] != Same || v["fastcache heap-bytes/entry"] != Same {
		t.Fatalf("verdicts %v", v)
	}
	// Fewer objects is an improvement.
	leaner := gcWith("fastcache", func(s *gcSynth) { s.objPerEntry = 0 })
	rep, err = Compare(gcRun(rng, 5, 0.05, gcBase...), gcRun(rng, 5, 0.05, leaner...), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if v := gcVerdicts(rep); v["fastcache heap-objects/entry"] != Improvement {
		t.Fatalf("verdicts %v", v)
	}
}

func TestGCPauseToleranceCoversPagesOfSmallRuns(t *testing.T) {
	spec := MetricSpec{Metric: MetricHeapBytesPerEntry, Exact: true, Threshold: HeapBytesTolerance}
	if got := rowSpec(spec, 20_000_000).Threshold; got != HeapBytesTolerance {
		t.Fatalf("20M entries: tolerance %v", got)
	}
	if got := rowSpec(spec, 16384).Threshold; got != 4 {
		t.Fatalf("16,384 entries: tolerance %v, want 64 KiB / entries = 4", got)
	}
	// Two more pages at 20,000 entries is noise; 16 more bytes an entry is not.
	rng := rand.New(rand.NewPCG(15, 16))
	old := gcRun(rng, 5, 0, gcBase...)
	small := func(r *report.Result, extra uint64) *report.Result {
		for i := range r.GCPause {
			p := &r.GCPause[i]
			p.Entries = 20_000
			p.HeapInUseBytes = p.BaselineHeapInUseBytes + uint64(float64(p.HeapInUseBytes-p.BaselineHeapInUseBytes)/10) + extra
			p.HeapObjects = p.BaselineHeapObjects + (p.HeapObjects-p.BaselineHeapObjects)/10
		}
		return r
	}
	old = small(old, 0)
	rep, err := Compare(old, small(gcRun(rng, 5, 0, gcBase...), 2*8192), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if v := gcVerdicts(rep); v["map heap-bytes/entry"] != Same {
		t.Fatalf("two pages: verdicts %v", v)
	}
	rep, err = Compare(old, small(gcRun(rng, 5, 0, gcBase...), 16*20_000), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if v := gcVerdicts(rep); v["map heap-bytes/entry"] != Regression {
		t.Fatalf("16 B per entry: verdicts %v", v)
	}
}

func TestGCPauseForcedGCTimeIsGateable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	slower := gcWith("map", func(s *gcSynth) { s.forcedGC *= 1.5; s.forcedCPU *= 1.5 })
	rep, err := Compare(gcRun(rng, 10, 0.02, gcBase...), gcRun(rng, 10, 0.02, slower...), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	v := gcVerdicts(rep)
	if v["map forced-gc-ms"] != Regression || v["map forced-gc-cpu-ms"] != Regression || v["fastcache forced-gc-ms"] == Regression {
		t.Fatalf("verdicts %v", v)
	}
	if rep.Regressions() != 2 {
		t.Fatalf("%d regressions, want 2", rep.Regressions())
	}
}

func TestGCPauseNormalizeCancelsABusierMachine(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	busier := gcWith("map", func(s *gcSynth) { s.forcedGC *= 1.6; s.forcedCPU *= 1.6 })
	for i := range busier {
		if busier[i].adapter == "fastcache" {
			busier[i].forcedGC *= 1.6
			busier[i].forcedCPU *= 1.6
		}
	}
	opt := DefaultOptions()
	rep, err := Compare(gcRun(rng, 10, 0.02, gcBase...), gcRun(rng, 10, 0.02, busier...), opt)
	if err != nil || rep.Regressions() == 0 {
		t.Fatalf("absolute times: err %v, %d regressions; want the slowdown seen", err, rep.Regressions())
	}
	opt.Normalize = "fastcache"
	rep, err = Compare(gcRun(rng, 10, 0.02, gcBase...), gcRun(rng, 10, 0.02, busier...), opt)
	if err != nil {
		t.Fatal(err)
	}
	v := gcVerdicts(rep)
	if v["map forced-gc-ms"] == Regression || rep.Regressions() != 0 {
		t.Fatalf("normalised: verdicts %v", v)
	}
	if _, ok := v["fastcache forced-gc-ms"]; ok {
		t.Fatal("the reference adapter is compared with itself")
	}
	opt.Normalize = "nosuch"
	if _, err := Compare(gcRun(rng, 5, 0, gcBase...), gcRun(rng, 5, 0, gcBase...), opt); !errors.Is(err, ErrNoReference) {
		t.Fatalf("missing reference: %v", err)
	}
}

func TestGCPauseNewProblemsAreRegressions(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	broken := gcWith("fastcache", func(s *gcSynth) { s.wrong = true })
	broken = append(broken, gcSynth{adapter: "freecache", failing: true})
	old := gcRun(rng, 5, 0.02, append(gcBase, gcSynth{adapter: "freecache", objPerEntry: 0.01, bytesPerEntry: 1, forcedGC: 0.01, forcedCPU: 0.001})...)
	rep, err := Compare(old, gcRun(rng, 5, 0.02, broken...), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.NewFlags) != 1 || !strings.Contains(rep.NewFlags[0], "fastcache gc-pause") || !strings.Contains(rep.NewFlags[0], "wrong values") {
		t.Fatalf("flags %v", rep.NewFlags)
	}
	if len(rep.NewErrors) != 1 || !strings.Contains(rep.NewErrors[0], "freecache") || !strings.Contains(rep.NewErrors[0], "5 children failed") {
		t.Fatalf("errors %v", rep.NewErrors)
	}
	if rep.Regressions() < 2 {
		t.Fatalf("%d regressions", rep.Regressions())
	}
}

func TestGCPauseInputErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	gc := gcRun(rng, 5, 0, gcBase...)
	runRes := run(rng, 5, 0, 0.01, base...)
	if _, err := Compare(runRes, gc, DefaultOptions()); !errors.Is(err, ErrNothingInCommon) || !strings.Contains(err.Error(), `"gc-pause"`) {
		t.Fatalf("run vs gc-pause: %v", err)
	}
	if _, err := Compare(gcRun(rng, 3, 0, gcBase...), gc, DefaultOptions()); !errors.Is(err, ErrTooFewSamples) {
		t.Fatalf("3 repetitions: %v", err)
	}
	other := gcRun(rng, 5, 0, gcBase...)
	for i := range other.GCPause {
		other.GCPause[i].Entries = 1000
	}
	if _, err := Compare(gc, other, DefaultOptions()); !errors.Is(err, ErrNothingInCommon) {
		t.Fatalf("other entry count: %v", err)
	}
}

func TestGCPauseRenders(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	opt := DefaultOptions()
	opt.Metrics[0].Threshold = 0.25 // ns/op's threshold applies to GC times
	rep, err := Compare(gcRun(rng, 5, 0, gcBase...), gcRun(rng, 5, 0, gcBase...), opt)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, rep, "text"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"heap-objects/entry exact ± 0.01", "heap-bytes/entry exact ± 1", "forced-gc-ms ≥ 25%",
		"forced-gc-cpu-ms, lower is better", "map", "gc-pause", "value-size=100 gogc=10"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
}
