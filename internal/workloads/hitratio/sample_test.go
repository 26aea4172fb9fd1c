package hitratio

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/workloads/trace"
)

func zipfSource(requests int64, keys int) TraceInput {
	return TraceInput{Name: "zipf", Gen: &trace.GenConfig{Kind: "zipf", Requests: requests, Keys: keys, Alpha: 1, Seed: 1, SizeMin: 64, SizeMax: 4096}}
}

func TestScaledBudget(t *testing.T) {
	sample := trace.Summary{Requests: 5_000, Distinct: 1_000, Bytes: 5_000 * 100, DistinctBytes: 1_000 * 100, MaxSize: 100}
	smp := &TraceSample{Sampled: trace.Sampled{FinalRate: 0.01, InputRequests: 600_000, InputBytes: 60_000_000}}
	per := BytesPerEntry(sample)
	for _, c := range []struct {
		cp          Capacity
		full, entry int
	}{
		{Capacity{Fraction: 0.05}, 5_000, 50}, // 5% of about 100,000 objects
		{Capacity{Entries: 2_000}, 2_000, 20},
		{Capacity{Entries: 20}, 20, 1}, // never below one entry
		{Capacity{Bytes: int64(3000 * per)}, 3000, 30},
	} {
		b, cs := scaled(c.cp, sample, smp)
		if cs == nil || cs.Entries != c.full || b.Entries != c.entry || cs.Rate != 0.01 {
			t.Errorf("%s: budget %+v, sample %+v; want %d entries on the whole trace, %d in the sample", c.cp, b, cs, c.full, c.entry)
		}
		if want := float64(b.Entries) / 1000; b.Fraction != want {
			t.Errorf("%s: fraction %g of the sample, want %g", c.cp, b.Fraction, want)
		}
		if math.Abs(float64(b.Bytes)-0.01*float64(cs.Bytes)) > 1 {
			t.Errorf("%s: %d bytes for %d on the whole trace", c.cp, b.Bytes, cs.Bytes)
		}
	}
	if b, cs := scaled(Capacity{Entries: 7}, sample, nil); cs != nil || b != (Capacity{Entries: 7}).Resolve(sample) {
		t.Errorf("unsampled: %+v %+v", b, cs)
	}
}

// TestSampledAtRateOneEqualsExact: a sample of every object replays the
// trace itself, so every figure equals the exact replay's and the error
// is nil.
func TestSampledAtRateOneEqualsExact(t *testing.T) {
	c := Config{Traces: []TraceInput{zipfSource(30_000, 3_000)}, Capacities: []Capacity{{Fraction: 0.02}, {Entries: 300}},
		Adapters: []string{"lru", "s3fifo", "sieve"}, Jobs: 2}
	exact, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	c.Sample = &trace.Sampling{Rate: 1, Seed: 9}
	sampled, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	e, s := exact.Traces[0], sampled.Traces[0]
	if s.Sample == nil || s.Sample.FinalRate != 1 || s.Sample.InputRequests != 30_000 || s.Sample.Objects != int64(e.Distinct) || e.Sample != nil {
		t.Fatalf("sample %+v (exact %+v)", s.Sample, e.Sample)
	}
	for i, er := range e.Rows {
		sr := s.Rows[i]
		if sr.Sample == nil || er.Sample != nil {
			t.Fatalf("%s at %s: sample %+v / %+v", er.Adapter, er.Capacity, sr.Sample, er.Sample)
		}
		if sr.HitRatio != er.HitRatio || sr.ByteHitRatio != er.ByteHitRatio || sr.Entries != er.Entries || sr.Sample.Entries != er.Entries ||
			sr.Sample.StdErr != 0 || sr.Sample.ByteStdErr != 0 || sr.Sample.SampleHitRatio != er.HitRatio {
			t.Errorf("%s at %s: sampled %+v %+v, exact %+v", er.Adapter, er.Capacity, sr, *sr.Sample, er)
		}
	}
}

// TestSampledEstimatesTheExactReplay: at 10% of a skewed trace's objects
// the adjusted figures fall within a few standard errors of the exact
// replay's, and the plain ratio over the sampled requests, swayed by the
// popular objects drawn (this seed's sample holds the most popular one),
// does not.
func TestSampledEstimatesTheExactReplay(t *testing.T) {
	c := Config{Traces: []TraceInput{zipfSource(400_000, 40_000)}, Capacities: []Capacity{{Fraction: 0.1}},
		Adapters: []string{"lru", "s3fifo"}, Jobs: 2}
	exact, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	c.Sample = &trace.Sampling{Rate: 0.1, Seed: 1}
	sampled, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	for i, er := range exact.Traces[0].Rows {
		sr := sampled.Traces[0].Rows[i]
		se := sr.Sample.StdErr
		if se <= 0 || se > 0.02 {
			t.Errorf("%s: standard error %g", er.Adapter, se)
		}
		if d := math.Abs(sr.HitRatio - er.HitRatio); d > 4*se+0.005 {
			t.Errorf("%s: sampled %.4f ± %.4f, exact %.4f", er.Adapter, sr.HitRatio, se, er.HitRatio)
		}
		if d := math.Abs(sr.Sample.SampleHitRatio - er.HitRatio); d < 0.05 {
			t.Errorf("%s: the plain ratio %.4f is within %.4f of the exact %.4f: the test no longer tells the adjustment from none", er.Adapter, sr.Sample.SampleHitRatio, d, er.HitRatio)
		}
		if d := math.Abs(sr.ByteHitRatio - er.ByteHitRatio); d > 4*sr.Sample.ByteStdErr+0.005 {
			t.Errorf("%s bytes: sampled %.4f ± %.4f, exact %.4f", er.Adapter, sr.ByteHitRatio, sr.Sample.ByteStdErr, er.ByteHitRatio)
		}
	}
}

func TestFixedSizeSampleKeepsAtMostN(t *testing.T) {
	c := Config{Traces: []TraceInput{zipfSource(50_000, 20_000)}, Capacities: []Capacity{{Fraction: 0.05}},
		Adapters: []string{"lru"}, Jobs: 1, Sample: &trace.Sampling{Max: 1_000, Seed: 2}}
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Traces[0]
	if tr.Distinct != 1_000 || tr.Sample.FinalRate >= 1 || tr.Sample.Max != 1_000 {
		t.Fatalf("kept %d objects at rate %g", tr.Distinct, tr.Sample.FinalRate)
	}
	for _, r := range tr.Rows {
		if r.Sample.Rate != tr.Sample.FinalRate || r.Entries != int(math.Round(float64(r.Sample.Entries)*r.Sample.Rate)) {
			t.Errorf("%s: %d entries at rate %g for %d", r.Adapter, r.Entries, r.Sample.Rate, r.Sample.Entries)
		}
	}
}

// TestSampledResultSaysSo: the JSON gives the sample of the trace and of
// every cell, the table their rate and errors.
func TestSampledResultSaysSo(t *testing.T) {
	c := Config{Traces: []TraceInput{zipfSource(20_000, 2_000)}, Capacities: []Capacity{{Entries: 200}},
		Adapters: []string{"lru"}, Jobs: 1, Sample: &trace.Sampling{Rate: 0.25, Seed: 5}}
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := Write(&js, res, "json"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sample *trace.Sampling `json:"sample"`
		Traces []struct {
			Sample map[string]any `json:"sample"`
			Rows   []struct {
				Sample map[string]any `json:"sample"`
			} `json:"rows"`
		} `json:"traces"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Sample == nil || doc.Sample.Rate != 0.25 || doc.Sample.Seed != 5 {
		t.Errorf("result sample %+v", doc.Sample)
	}
	ts := doc.Traces[0].Sample
	for _, k := range []string{"rate", "seed", "final_rate", "input_requests", "estimated_objects", "error_method"} {
		if _, ok := ts[k]; !ok {
			t.Errorf("trace sample has no %q: %v", k, ts)
		}
	}
	for _, row := range doc.Traces[0].Rows {
		for _, k := range []string{"rate", "full_entries", "hit_ratio_stderr", "byte_hit_ratio_stderr", "sample_hit_ratio"} {
			if _, ok := row.Sample[k]; !ok {
				t.Errorf("row sample has no %q: %v", k, row.Sample)
			}
		}
	}
	var txt bytes.Buffer
	if err := Write(&txt, res, "text"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sampled by key hash at 25% of its objects (seed 5)", "200 (200→50)", " ±", "standard error"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, txt.String())
		}
	}
}
