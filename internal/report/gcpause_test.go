package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// gcReadsFixture is a gc-pause result whose children timed Gets inside and
// outside repeated forced collections.
func gcReadsFixture() *Result {
	r := gcFixture("cpu")
	for i := range r.GCPause {
		p := &r.GCPause[i]
		if p.Error != "" {
			continue
		}
		p.GetDuringGC = Latency{Samples: 12_000, P50: 600, P99: 2000, P999: 90_000, Max: 1e6}
		p.GetOutsideGC = Latency{Samples: 30_000, P50: 500, P99: 1000, P999: 3000, Max: 1e5}
		p.GCReads = GCReadPhase{Target: 10_000, Cycles: 7, Seconds: 0.4}
		if p.Adapter == "map" && p.Repetition == 1 {
			p.GCReads = GCReadPhase{Target: 10_000, Cycles: 1, Seconds: 61, TimeBound: true, BackgroundCycles: 2}
			p.GetDuringGC.Samples = 4_000
		}
	}
	return r
}

func TestGCReadsTableSideBySide(t *testing.T) {
	for _, format := range []string{"markdown", "text"} {
		var buf bytes.Buffer
		var err error
		if format == "markdown" {
			err = WriteMarkdown(&buf, gcReadsFixture())
		} else {
			err = WriteText(&buf, gcReadsFixture())
		}
		if err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{
			"In GC p50 / p99 / p99.9", "Outside GC p50 / p99 / p99.9",
			"600 ns / 2.00 µs / 90.0 µs", "500 ns / 1.00 µs / 3.00 µs", "2.00×",
			"24,000 / 60,000", "16,000 / 60,000", // freecache: 2 × 12,000; map: 12,000 + 4,000
			"time bound ended the reads", "map (repetition 2: 4,000 Gets in 1 cycles, 61.0 s)",
			"collections of its own during the reads (their Gets count as outside) for: map (repetition 2: 2)",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", format, want, out)
			}
		}
		if strings.Contains(out, "lmdb  ") || strings.Contains(out, "| lmdb | 0") {
			t.Errorf("%s: a failed child has a reads row:\n%s", format, out)
		}
	}
	if rows := tableRowsAfter(t, gcReadsFixture(), "Outside GC p50"); strings.Join(rows, ";") != "freecache;map" {
		t.Errorf("reads rows %v, want the main table's order without failures", rows)
	}
}

// tableRowsAfter returns the first cells of the markdown table whose
// header contains header.
func tableRowsAfter(t *testing.T, r *Result, header string) []string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	i := strings.Index(md, header)
	if i < 0 {
		t.Fatalf("no %q in:\n%s", header, md)
	}
	var names []string
	for _, line := range strings.Split(md[i:], "\n")[2:] {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		names = append(names, strings.TrimSpace(strings.Split(line, "|")[1]))
	}
	return names
}

func TestGCReadsTableAbsentForOlderResults(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, gcFixture("cpu")); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "Outside GC") {
		t.Fatalf("a result without outside-GC reads shows the reads table:\n%s", buf.String())
	}
}

func TestGCReadsJSONRoundTrip(t *testing.T) {
	r := gcReadsFixture()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"get_outside_gc"`, `"gc_reads"`, `"time_bound": true`} {
		if !strings.Contains(buf.String(), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	got, err := ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(got.GCPause)
	b, _ := json.Marshal(r.GCPause)
	if string(a) != string(b) {
		t.Fatalf("round trip changed the entries:\n%s\n%s", a, b)
	}
}

// TestGCReadsFewGetsPerCycle: an adapter whose collections overlapped
// under minGetsPerCycle Gets each is named, with its Gets per cycle, in
// the note under the reads table; one with more is not.
func TestGCReadsFewGetsPerCycle(t *testing.T) {
	r := gcReadsFixture()
	for i := range r.GCPause {
		if p := &r.GCPause[i]; p.Adapter == "freecache" {
			p.GCReads.Cycles = 40 // 12,000 Gets in 40 cycles, twice
		}
	}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "In-GC p99 over few Gets a cycle: freecache (300 a cycle).") {
		t.Errorf("no note naming freecache at 300 Gets a cycle:\n%s", out)
	}
	buf.Reset()
	if err := WriteMarkdown(&buf, gcReadsFixture()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "few Gets a cycle") {
		t.Errorf("the note appears with 1,714 and 2,000 Gets a cycle:\n%s", buf.String())
	}
}
