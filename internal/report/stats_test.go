package report

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{3, 1, 2, 6})
	if s.N != 4 || s.Mean != 3 || s.Median != 2.5 || s.Min != 1 || s.Max != 6 {
		t.Fatalf("summary %+v", s)
	}
	// Sample sd: squares 0+4+1+9 = 14 over n-1 = 3.
	if want := math.Sqrt(14.0 / 3); math.Abs(s.SD-want) > 1e-12 {
		t.Errorf("sd %v, want %v", s.SD, want)
	}
	if one := Summarize([]float64{7}); one.SD != 0 || one.Mean != 7 || one.Median != 7 {
		t.Errorf("one value: %+v", one)
	}
	if empty := Summarize(nil); empty != (Summary{}) {
		t.Errorf("empty: %+v", empty)
	}
}

func TestMeasurementStatSkipsMissingFigures(t *testing.T) {
	m := Measurement{Samples: []Sample{
		{NsPerOp: 100, HitRatio: 0.5, HotHitRatio: -1, Hits: 1, Misses: 1, Latency: Latency{Samples: 10, P99: 300}},
		{NsPerOp: 300, HitRatio: -1, HotHitRatio: -1, Hits: 3, Misses: 0},
	}}
	if s := m.Stat(MetricNsPerOp); s.N != 2 || s.Mean != 200 {
		t.Errorf("ns/op %+v", s)
	}
	if s := m.Stat(MetricHitRatio); s.N != 1 || s.Mean != 0.5 {
		t.Errorf("a hit ratio of -1 must not count: %+v", s)
	}
	if s := m.Stat(MetricHotHitRatio); s.N != 0 {
		t.Errorf("hot hit ratio %+v", s)
	}
	if s := m.Stat(MetricP99); s.N != 1 || s.Mean != 300 {
		t.Errorf("latency without samples must not count: %+v", s)
	}
	if h, ok := m.HitRatio(); !ok || h != 0.8 {
		t.Errorf("weighted hit ratio %v %v, want 0.8", h, ok)
	}
	if _, ok := (Measurement{}).HitRatio(); ok {
		t.Error("hit ratio without lookups")
	}
}

func TestFlags(t *testing.T) {
	if n, c := ParseFlag("wrong-values:12"); n != "wrong-values" || c != 12 {
		t.Errorf("ParseFlag = %q %d", n, c)
	}
	if n, c := ParseFlag("lossy"); n != "lossy" || c != -1 {
		t.Errorf("ParseFlag = %q %d", n, c)
	}
	if got := FlagText("wrong-values:12"); got != "⚠ wrong values: 12" {
		t.Errorf("FlagText = %q", got)
	}
	if got := FlagText("lossy"); got != "⚠ lossy" {
		t.Errorf("FlagText = %q", got)
	}
}
