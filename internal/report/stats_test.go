package report

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
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
	var ms []Measurement
	in := `[{"flags":["wrong-values:12","lossy","odd:x"]}]`
	if err := json.Unmarshal([]byte(in), &ms); err != nil {
		t.Fatal(err)
	}
	want := []Flag{{FlagWrongValues, 12}, {FlagLossy, -1}, {"odd:x", -1}}
	if !slices.Equal(ms[0].Flags, want) {
		t.Errorf("flags read back as %+v, want %+v", ms[0].Flags, want)
	}
	out, err := json.Marshal(ms)
	if err != nil || !strings.Contains(string(out), `"flags":["wrong-values:12","lossy","odd:x"]`) {
		t.Errorf("flags written as %s (%v): the JSON form of schema 1 must not change", out, err)
	}
	if got := want[0].Text(); got != "⚠ wrong values: 12" {
		t.Errorf("Text = %q", got)
	}
	if got := want[1].Text(); got != "⚠ lossy" {
		t.Errorf("Text = %q", got)
	}
	if f, ok := ms[0].Flag(FlagWrongValues); !ok || f.Count != 12 {
		t.Errorf("Flag(wrong-values) = %+v %v", f, ok)
	}
}

func TestFailureReadsOldAndNewForms(t *testing.T) {
	var fs []Failure
	in := `["lmdb: insert-lookup procs=2: new: open /tmp/x1: no space", "otter: boom",
		{"code":"new","adapter":"lmdb","workload":"insert-lookup","procs":2,"message":"open /tmp/x2: no space"}]`
	if err := json.Unmarshal([]byte(in), &fs); err != nil {
		t.Fatal(err)
	}
	if fs[0].Code != FailOther || fs[0].Adapter != "lmdb" || fs[0].Procs != 2 || fs[0].Message != "new: open /tmp/x1: no space" {
		t.Errorf("old form read as %+v", fs[0])
	}
	if fs[1].Adapter != "otter" || fs[1].Message != "boom" || fs[1].String() != "otter: boom" {
		t.Errorf("old form without workload read as %+v", fs[1])
	}
	if fs[2].String() != "lmdb: insert-lookup procs=2: open /tmp/x2: no space" {
		t.Errorf("String = %q", fs[2].String())
	}
	again := fs[2]
	again.Message = "open /tmp/x3: no space"
	if again.Key() != fs[2].Key() {
		t.Error("the same failure with another temp path has another key")
	}
}
