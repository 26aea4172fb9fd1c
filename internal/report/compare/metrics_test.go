package compare

import (
	"testing"

	"github.com/cachebench/cachebench/internal/report"
)

// TestSpecsFromUnitTable: every metric compare names takes its direction
// and mode from report's table, and they are the ones compare used before
// the table was shared.
func TestSpecsFromUnitTable(t *testing.T) {
	want := map[report.Metric]MetricSpec{
		report.MetricNsPerOp:      {Better: LowerIsBetter},
		report.MetricOpsPerSec:    {Better: HigherIsBetter},
		report.MetricAllocsPerOp:  {Better: LowerIsBetter, Exact: true},
		report.MetricBytesPerOp:   {Better: LowerIsBetter, Exact: true},
		report.MetricP50:          {Better: LowerIsBetter},
		report.MetricP99:          {Better: LowerIsBetter},
		report.MetricP999:         {Better: LowerIsBetter},
		report.MetricHitRatio:     {Better: HigherIsBetter},
		report.MetricHotHitRatio:  {Better: HigherIsBetter},
		report.MetricColdHitRatio: {Better: HigherIsBetter},
		MetricHeapObjectsPerEntry: {Better: LowerIsBetter, Exact: true},
		MetricHeapBytesPerEntry:   {Better: LowerIsBetter, Exact: true},
		MetricForcedGCMs:          {Better: LowerIsBetter},
		MetricForcedGCCPUMs:       {Better: LowerIsBetter},
	}
	for _, m := range knownMetrics {
		if _, ok := want[m]; !ok {
			t.Errorf("%s: compared but not in this test", m)
		}
	}
	for m, w := range want {
		got, ok := specOf(m)
		if !ok {
			t.Errorf("%s: no direction in report's table", m)
			continue
		}
		if got.Better != w.Better || got.Exact != w.Exact {
			t.Errorf("%s: better %v exact %v, want %v %v", m, got.Better, got.Exact, w.Better, w.Exact)
		}
	}
	for _, s := range GCPauseMetrics(DefaultOptions()) {
		if w := want[s.Metric]; s.Better != w.Better || s.Exact != w.Exact {
			t.Errorf("GCPauseMetrics %s: better %v exact %v", s.Metric, s.Better, s.Exact)
		}
	}
}

// TestFmtPairFloatNoise: exact figures that differ only past the twelfth
// digit read as the same figure, in table precision, not as twelve
// digits of zeros.
func TestFmtPairFloatNoise(t *testing.T) {
	r := Row{Metric: report.MetricBytesPerOp, Exact: true}
	a, b := fmtPair(r, 161.40864, 161.40864*(1+1e-15))
	if a != "161 B" || b != "161 B" {
		t.Fatalf("fmtPair = %q, %q; want 161 B twice", a, b)
	}
}
