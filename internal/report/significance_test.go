package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// insertLookup builds the insert and lookup measurements of adapter with
// the given lookup times per repetition.
func insertLookup(adapter string, hits, misses int64, lookup ...float64) []Measurement {
	ins := make([]float64, len(lookup))
	for i := range ins {
		ins[i] = 300
	}
	return []Measurement{
		{Adapter: adapter, Workload: "insert-lookup", Phase: PhaseInsert, Procs: 1, Keys: 1000, Samples: samples(0, 0, ins...)},
		{Adapter: adapter, Workload: "insert-lookup", Phase: PhaseLookup, Procs: 1, Keys: 1000, Samples: samples(hits, misses, lookup...)},
	}
}

func markdown(t *testing.T, r *Result) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// Ranks: fast and mid are told apart (5 against 5 repetitions that do
// not overlap), mid and midtoo are not (their repetitions interleave), so
// midtoo shares rank 2; slow is separated from mid and ranks 4.
func TestRanksMarkTiesTheRepetitionsDoNotSeparate(t *testing.T) {
	var ms []Measurement
	ms = append(ms, insertLookup("fast", 1000, 0, 100, 101, 102, 103, 104)...)
	ms = append(ms, insertLookup("mid", 1000, 0, 200, 202, 204, 206, 208)...)
	ms = append(ms, insertLookup("midtoo", 1000, 0, 201, 203, 205, 207, 209)...)
	ms = append(ms, insertLookup("slow", 1000, 0, 400, 401, 402, 403, 404)...)
	out := markdown(t, &Result{Kind: KindRun, Measurements: ms})
	for _, w := range []string{"| 1 | fast |", "| 2 | mid |", "| ≈2 | midtoo |", "| 4 | slow |"} {
		if !strings.Contains(out, "\n"+w) {
			t.Fatalf("no row starting %q:\n%s", w, out)
		}
	}
	if got := tableRows(t, out, "fastest lookup first"); strings.Join(got, " ") != "fast mid midtoo slow" {
		t.Fatalf("order %v", got)
	}
	if !strings.Contains(out, "Rank ≈N: the repetitions do not tell this row apart from the row ranked N") {
		t.Errorf("no explanation of ≈:\n%s", out)
	}
	// Every lookup hit: no Hit % column, a sentence instead.
	if strings.Contains(out, "Hit %") || !strings.Contains(out, "Every lookup hit") {
		t.Errorf("hit column:\n%s", out)
	}
	if strings.Contains(out, "Spread") {
		t.Errorf("spread warning for tight repetitions:\n%s", out)
	}
}

func TestSpreadWarningAndTooFewRepetitions(t *testing.T) {
	var ms []Measurement
	ms = append(ms, insertLookup("steady", 1000, 0, 100, 101, 102, 103, 104)...)
	ms = append(ms, insertLookup("noisy", 1000, 0, 100, 300, 150, 400, 120)...)
	out := markdown(t, &Result{Kind: KindRun, Measurements: ms})
	if !strings.Contains(out, "⚠ Spread: noisy (lookup ") || strings.Contains(out, "steady (lookup") {
		t.Errorf("spread warning:\n%s", out)
	}
	ms = append(insertLookup("a", 1000, 0, 100, 101, 102), insertLookup("b", 1000, 0, 200, 201, 202)...)
	out = markdown(t, &Result{Kind: KindRun, Measurements: ms})
	if strings.Contains(out, "| Rank |") || !strings.Contains(out, "No ranks: fewer than 4 repetitions") {
		t.Errorf("3 repetitions:\n%s", out)
	}
}

// A miss shows the Hit % column again.
func TestHitColumnWhenALookupMissed(t *testing.T) {
	ms := append(insertLookup("a", 1000, 0, 100, 101, 102, 103), insertLookup("b", 990, 10, 200, 201, 202, 203)...)
	out := markdown(t, &Result{Kind: KindRun, Measurements: ms})
	if !strings.Contains(out, "Hit %") || !strings.Contains(out, "99.00%") {
		t.Errorf("hit column:\n%s", out)
	}
}

// Every adapter failed: no table of the probe alone, a sentence instead.
func TestAllFailedShowsNoTable(t *testing.T) {
	r := &Result{Kind: KindRun, Measurements: insertLookup("null", 1000, 0, 5, 5, 5, 5, 5),
		Errors: []Failure{{Code: FailNew, Adapter: "memcached", Workload: "insert-lookup", Procs: 1, Message: "dial tcp 10.0.0.1:11211: i/o timeout"}}}
	out := markdown(t, r)
	if strings.Contains(out, "| null |") || strings.Contains(out, "| 1 | null") || !strings.Contains(out, "every adapter failed (memcached") {
		t.Errorf("all failed:\n%s", out)
	}
	// The probe run alone, asked for, keeps its table.
	r.Errors = nil
	if out := markdown(t, r); !strings.Contains(out, "null |") {
		t.Errorf("probe alone:\n%s", out)
	}
}

// A memory-only run's batched lookup is a line, not a table of file
// columns; a file store gets the file table with cold p50/p99.9/max.
func TestBatchLineAndFileTable(t *testing.T) {
	ms := insertLookup("shardcache", 1000, 0, 100, 101, 102, 103)
	ms = append(ms, Measurement{Adapter: "shardcache", Workload: "insert-lookup", Phase: PhaseLookupBatch, Procs: 1, Keys: 1000,
		Note: "GetBatch in batches of 64 keys", Samples: samples(1000, 0, 50, 51, 52, 53)})
	out := markdown(t, &Result{Kind: KindRun, Measurements: ms})
	if strings.Contains(out, "File stores") || !strings.Contains(out, "Batched lookup: shardcache 51.5 ± 1.3 ns per key") ||
		!strings.Contains(out, "1.97× its single lookup's throughput") {
		t.Errorf("memory run:\n%s", out)
	}
	ms = append(ms, insertLookup("mmapstore", 1000, 0, 150, 151, 152, 153)...)
	ms = append(ms,
		Measurement{Adapter: "mmapstore", Workload: "insert-lookup", Phase: PhaseOpen, Procs: 1, Keys: 1000, Samples: samples(0, 0, 5e4, 5e4, 5e4, 5e4)},
		Measurement{Adapter: "mmapstore", Workload: "insert-lookup", Phase: PhaseLookupCold, Procs: 1, Keys: 1000, Samples: samples(100, 0, 600, 610, 620, 630)})
	out = markdown(t, &Result{Kind: KindRun, Measurements: ms})
	if !strings.Contains(out, "| Implementation | Open | Cold lookup ns ± sd | Cold p50 | Cold p99.9 | Cold max |") ||
		!strings.Contains(out, "Batched lookup: shardcache") {
		t.Errorf("file run:\n%s", out)
	}
}

// A wide-spread row does not chain the rows after it into its tie: each
// is compared with the row that holds the rank.
func TestRanksDoNotChainThroughAWideRow(t *testing.T) {
	var ms []Measurement
	ms = append(ms, insertLookup("a", 1000, 0, 60, 61, 62, 63, 64)...)
	ms = append(ms, insertLookup("wide", 1000, 0, 40, 55, 70, 90, 110)...)
	ms = append(ms, insertLookup("b", 1000, 0, 100, 101, 102, 103, 104)...)
	out := markdown(t, &Result{Kind: KindRun, Measurements: ms})
	for _, w := range []string{"| 1 | a |", "| ≈1 | wide |", "| 3 | b |"} {
		if !strings.Contains(out, "\n"+w) {
			t.Fatalf("no row starting %q:\n%s", w, out)
		}
	}
}

// The note under the insert-lookup table names constructors of a
// millisecond or more, and says the others took less.
func TestNewNote(t *testing.T) {
	ms := insertLookup("fast", 1000, 0, 100, 101, 102)
	ms = append(ms, insertLookup("slow", 1000, 0, 200, 201, 202)...)
	for i := range ms {
		if ms[i].Phase != PhaseInsert {
			continue
		}
		for j := range ms[i].Samples {
			ms[i].Samples[j].NewNs = 2e5
			if ms[i].Adapter == "slow" {
				ms[i].Samples[j].NewNs = 99e6
			}
		}
	}
	out := markdown(t, &Result{Kind: KindRun, Measurements: ms})
	if !strings.Contains(out, "New, before the insert pass and not in its figures: slow 99.0 ± 0.0 ms; the others under 1 ms.") {
		t.Errorf("no note of the slow constructor:\n%s", out)
	}
	for i := range ms {
		for j := range ms[i].Samples {
			ms[i].Samples[j].NewNs = 0
		}
	}
	if out := markdown(t, &Result{Kind: KindRun, Measurements: ms}); strings.Contains(out, "New, before") {
		t.Errorf("a note without constructor times:\n%s", out)
	}
}

// The note under the insert-lookup table gives each adapter's memory on
// huge pages, as a range when the repetitions differ, and only when some
// adapter had any.
func TestHugeNote(t *testing.T) {
	ms := insertLookup("paged", 1000, 0, 100, 101, 102)
	ms = append(ms, insertLookup("steady", 1000, 0, 110, 111, 112)...)
	ms = append(ms, insertLookup("small", 1000, 0, 200, 201, 202)...)
	if out := markdown(t, &Result{Kind: KindRun, Measurements: ms}); strings.Contains(out, "2 MiB pages") {
		t.Errorf("a huge-page note with none measured:\n%s", out)
	}
	for i := range ms {
		if ms[i].Phase != PhaseInsert {
			continue
		}
		for j := range ms[i].Samples {
			switch ms[i].Adapter {
			case "paged":
				ms[i].Samples[j].HugeBytes = int64(j*20+4) << 20
			case "steady":
				ms[i].Samples[j].HugeBytes = 44 << 20
			}
		}
	}
	out := markdown(t, &Result{Kind: KindRun, Measurements: ms})
	if !strings.Contains(out, "On 2 MiB pages after the insert (the process's AnonHugePages, less its amount before New): paged 4.00 MiB to 44.0 MiB, steady 44.0 MiB; the others none.") {
		t.Errorf("no huge-page note, or a wrong one:\n%s", out)
	}
}

// TestMinSamples: the smallest p of a U test is 2/C(m+n, m), and the
// minimum per side is the first count whose smallest p is below alpha.
func TestMinSamples(t *testing.T) {
	for _, c := range []struct {
		m, n int
		p    float64
	}{{2, 2, 2.0 / 6}, {3, 3, 2.0 / 20}, {4, 4, 2.0 / 70}, {5, 5, 2.0 / 252}, {3, 4, 2.0 / 35}, {0, 5, 1}, {1, 1, 1}} {
		if got := SmallestP(c.m, c.n); math.Abs(got-c.p) > 1e-12 {
			t.Errorf("SmallestP(%d, %d) = %v, want %v", c.m, c.n, got, c.p)
		}
	}
	for alpha, want := range map[float64]int{0.05: 4, 0.01: 5, 0.001: 7, 0.5: 2} {
		if got := MinSamples(alpha); got != want {
			t.Errorf("MinSamples(%v) = %d, want %d", alpha, got, want)
		}
	}
	if MinRankSamples != MinSamples(RankAlpha) {
		t.Errorf("MinRankSamples %d, MinSamples(RankAlpha) %d", MinRankSamples, MinSamples(RankAlpha))
	}
	if err := CheckSamples("--count 3", 3, 3, 0.05); err == nil || !strings.Contains(err.Error(), "at least 4") {
		t.Errorf("3 and 3 at 0.05: %v, want a refusal naming 4", err)
	}
	if err := CheckSamples("--count 4", 4, 4, 0.05); err != nil {
		t.Errorf("4 and 4 at 0.05: %v", err)
	}
}
