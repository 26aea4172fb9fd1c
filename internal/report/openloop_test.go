package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// openResult is a run with one adapter at two offered rates, the second
// saturated (achieved 60% of it), and its closed-loop measurement.
func openResult(t *testing.T) *Result {
	t.Helper()
	h := hdrhistogram.New(1, int64(time.Minute), 3)
	for i := int64(1); i <= 1000; i++ {
		_ = h.RecordValue(i * 1000)
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	open := func(rate, achieved, p99 float64) Measurement {
		m := Measurement{Adapter: "shardcache", Workload: "get-or-set/zipf", Phase: PhaseGetOrSet, Procs: 1, Keys: 1000,
			Rate: rate, Arrivals: ArrivalsUniform}
		for range 2 {
			m.Samples = append(m.Samples, Sample{Ops: 1000, NsPerOp: 1e9 / achieved, OpsPerSec: achieved, Hits: 900, Misses: 100,
				HitRatio: 0.9, HotHitRatio: -1, ColdHitRatio: -1,
				Latency: Latency{Samples: 1000, P50: 800, P99: p99, P999: 2 * p99, Max: 3 * p99},
				Open: &OpenLoop{Offered: rate, Achieved: achieved, Uncorrected: Latency{P99: 700, P999: 900}, MaxBacklog: 3,
					IntervalNs: 1e9, Series: []Interval{{StartS: 0, Ops: 1000, P50: 800, P99: p99}},
					CorrectedHist: string(enc), UncorrectedHist: string(enc)}})
		}
		if f, ok := SaturatedFlag(&m); ok {
			m.Flags = append(m.Flags, f)
		}
		return m
	}
	closed := Measurement{Adapter: "shardcache", Workload: "get-or-set/zipf", Phase: PhaseGetOrSet, Procs: 1, Keys: 1000,
		Samples: []Sample{{Ops: 1000, NsPerOp: 300, OpsPerSec: 3.3e6, HitRatio: 0.9, Hits: 900, Misses: 100, HotHitRatio: -1, ColdHitRatio: -1}}}
	slo := SLO{Percentile: 99, Max: Duration(time.Millisecond)}
	return &Result{Schema: SchemaVersion, Tool: "cachebench", Kind: KindRun, SLO: &slo,
		Measurements: []Measurement{closed, open(1e4, 1e4, 5e5), open(1e6, 6e5, 5e6)}}
}

func TestSaturated(t *testing.T) {
	r := openResult(t)
	if _, ok := SaturatedFlag(&r.Measurements[1]); ok {
		t.Error("a pass at its offered rate flagged saturated")
	}
	f, ok := SaturatedFlag(&r.Measurements[2])
	if !ok || f.Count != 60 {
		t.Errorf("achieved 60%% of the offered rate: flag %v, %v", f, ok)
	}
	// Just below and at the 90% line.
	if !(&OpenLoop{Offered: 100, Achieved: 89.9}).Saturated() || (&OpenLoop{Offered: 100, Achieved: 90}).Saturated() {
		t.Error("the saturation line is not at 90% of the offered rate")
	}
}

// Every output marks the saturated row, and the SLO line names the
// highest rate meeting the objective, never a saturated one.
func TestOpenLoopOutputs(t *testing.T) {
	r := openResult(t)
	var text bytes.Buffer
	if err := WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, want := range []string{"open loop", "⚠ saturated: achieved 60% of the offered rate", "Uncorrected p99",
		"Highest offered rate meeting p99 ≤ 1ms", "shardcache 10.0K/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	// The closed-loop table still shows the closed measurement alone.
	if strings.Count(out, "Get-or-set (a miss sets the key)") != 1 {
		t.Errorf("closed-loop table missing or repeated:\n%s", out)
	}
	// A saturated rate never meets an objective, however low its latency.
	lax := SLO{Percentile: 99, Max: Duration(time.Hour)}
	ms := []*Measurement{&r.Measurements[1], &r.Measurements[2]}
	if best, ok := HighestMeeting(ms, lax); !ok || best != 1e4 {
		t.Errorf("highest rate meeting p99=1h: %v, %v; want 10k (1M is saturated)", best, ok)
	}

	// JSON keeps everything.
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&js)
	if err != nil {
		t.Fatal(err)
	}
	if m := back.Measurements[2]; m.Rate != 1e6 || m.Samples[0].Open == nil || m.Samples[0].Open.Achieved != 6e5 ||
		len(m.Flags) != 1 || m.Flags[0].Name != FlagSaturated || back.SLO == nil || back.SLO.String() != "p99=1ms" {
		t.Errorf("JSON round trip: %+v, slo %v", m, back.SLO)
	}

	// gobench: each rate its own benchmark, saturation read back.
	var gb bytes.Buffer
	if err := WriteGoBench(&gb, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gb.String(), "/rate=1000000-1 ") || !strings.Contains(gb.String(), " saturated") {
		t.Errorf("gobench lacks the rate or the saturated unit:\n%s", gb.String())
	}
	g, err := ReadGoBench(&gb, "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Measurements) != 3 {
		t.Fatalf("gobench read back %d measurements, want 3 (closed, 10k, 1M)", len(g.Measurements))
	}
	for _, m := range g.Measurements {
		_, sat := SaturatedFlag(&m)
		if sat != (m.Rate == 1e6) {
			t.Errorf("gobench read back %s at %v/s: saturated %v", m.Adapter, m.Rate, sat)
		}
		if m.Rate > 0 && (m.Samples[0].Open == nil || m.Samples[0].Open.Uncorrected.P99 != 700) {
			t.Errorf("gobench read back the open-loop figures as %+v", m.Samples[0].Open)
		}
	}
}

func TestWriteHgrm(t *testing.T) {
	r := openResult(t)
	dir := t.TempDir()
	files, err := WriteHgrm(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("wrote %v, want corrected and uncorrected for two rates", files)
	}
	b, err := os.ReadFile(filepath.Join(dir, "get-or-set-zipf-get-or-set-shardcache-procs1-rate10000-corrected.hgrm"))
	if err != nil {
		t.Fatal(err)
	}
	// HdrHistogram's percentile format: its header, and the two
	// repetitions merged (2,000 values), the largest 1 ms.
	s := string(b)
	if !strings.Contains(s, "Value") || !strings.Contains(s, "Percentile") || !strings.Contains(s, "#[Max     =        1.000, Total count    =         2000]") {
		t.Errorf("not the .hgrm of the merged histograms:\n%s", s)
	}
	r.Measurements[1].Samples[0].Open.CorrectedHist = ""
	if _, err := WriteHgrm(t.TempDir(), r); err == nil || !strings.Contains(err.Error(), "no histogram") {
		t.Errorf("a measurement without its histogram: %v", err)
	}
}

func TestParseSLO(t *testing.T) {
	for in, want := range map[string]string{"p99=1ms": "p99=1ms", "P99.9 = 250us": "p99.9=250µs", "p50=2s": "p50=2s"} {
		o, err := ParseSLO(in)
		if err != nil || o.String() != want {
			t.Errorf("ParseSLO(%q) = %v, %v; want %s", in, o, err, want)
		}
	}
	for _, in := range []string{"", "p99", "p98=1ms", "p99=0", "p99=-1ms", "p99=fast", "=1ms"} {
		if o, err := ParseSLO(in); err == nil {
			t.Errorf("ParseSLO(%q) = %v, want an error", in, o)
		}
	}
}
