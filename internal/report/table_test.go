package report

import (
	"strings"
	"testing"
)

func TestTableMarkdownAlignsAndEscapes(t *testing.T) {
	tab := NewFigureTable("name", "ns/op")
	tab.Add("a|b", "12")
	var b strings.Builder
	if err := tab.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want := "| name | ns/op |\n|---|---:|\n| a\\|b | 12 |\n"
	if b.String() != want {
		t.Fatalf("markdown:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestTableTextRulesTheHeader(t *testing.T) {
	tab := NewTable("adapter", "µs")
	tab.Add("fastcache", "1.23")
	var b strings.Builder
	if err := tab.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "adapter    µs\n-------    --\nfastcache  1.23\n"
	if b.String() != want {
		t.Fatalf("text:\n%q\nwant:\n%q", b.String(), want)
	}
}

func TestFormatMetric(t *testing.T) {
	for _, c := range []struct {
		m      Metric
		v      float64
		digits int
		want   string
	}{
		{MetricNsPerOp, 1234, 3, "1.23 µs"},
		{MetricNsPerOp, 612, 3, "612 ns"},
		{MetricP99, 2.5e6, 4, "2.500 ms"},
		{MetricOpsPerSec, 1.63e6, 3, "1.63M"},
		{MetricHitRatio, 0.9123, 3, "91.2%"},
		{MetricBytesPerOp, 154.6, 3, "155 B"},
		{MetricAllocsPerOp, 4e-05, 3, "0.0000400"},
		{MetricAllocsPerOp, 5.38675, 5, "5.3868"},
		{MetricAllocsPerOp, 123456, 3, "123456"},
	} {
		if got := FormatMetric(c.m, c.v, c.digits); got != c.want {
			t.Errorf("FormatMetric(%s, %g, %d) = %q, want %q", c.m, c.v, c.digits, got, c.want)
		}
	}
	// The tables keep their own bound of three decimals.
	if got := fmtNs(0.0012345); got != "0.001 ns" {
		t.Errorf("fmtNs(0.0012345) = %q", got)
	}
}

func TestUnitTable(t *testing.T) {
	for unit, want := range map[string]UnitInfo{
		"ns/op":        {Better: LowerIsBetter, BenchstatKnows: true},
		"allocs/op":    {Better: LowerIsBetter, Exact: true, BenchstatKnows: true},
		"ops/s":        {Better: HigherIsBetter},
		"hit-ratio":    {Better: HigherIsBetter},
		"wrong-values": {Better: LowerIsBetter, Exact: true},
		"verified":     {Better: HigherIsBetter},
	} {
		if got, ok := UnitOf(unit); !ok || got != want {
			t.Errorf("UnitOf(%q) = %+v, %v; want %+v", unit, got, ok, want)
		}
	}
	if _, ok := UnitOf(unitHeldOfBudget); ok {
		t.Errorf("%s has a direction; holding less than a budget is neither better nor worse", unitHeldOfBudget)
	}
	if HigherIsBetter.String() != "higher" || LowerIsBetter.String() != "lower" {
		t.Error("Direction.String does not give benchfmt's words")
	}
}
