package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test -update rewrites it after review)\n--- got ---\n%s", path, got)
	}
}

func TestMarkdownGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, runFixture("Test CPU @ 3.00GHz"), gcFixture("Test CPU @ 3.00GHz")); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md.golden", buf.Bytes())
}

func TestTextGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteText(&buf, runFixture("Test CPU @ 3.00GHz"), gcFixture("Test CPU @ 3.00GHz")); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.txt.golden", buf.Bytes())
}

// tableRows returns the first cell of each data row of the markdown table
// that follows the line starting with after.
func tableRows(t *testing.T, md, after string) []string {
	t.Helper()
	i := strings.Index(md, after)
	if i < 0 {
		t.Fatalf("no %q in:\n%s", after, md)
	}
	var names []string
	inTable := false
	col := 1 // of the implementation's name: after a rank column, 2
	for _, line := range strings.Split(md[i:], "\n")[1:] {
		switch {
		case strings.HasPrefix(line, "| Implementation"), strings.HasPrefix(line, "| Rank | Implementation"):
			inTable = true
			if strings.HasPrefix(line, "| Rank") {
				col = 2
			}
		case strings.HasPrefix(line, "|---"):
		case strings.HasPrefix(line, "| ") && inTable:
			names = append(names, strings.TrimSpace(strings.Split(line, "|")[col]))
		case inTable:
			return names
		}
	}
	return names
}

func TestMarkdownRanksFastestFirstAndFlaggedLast(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, runFixture("cpu")); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	// "broken" is the fastest but returns wrong values: it must be shown
	// with its flags, after every correct adapter.
	got := tableRows(t, md, "### insert-lookup · GOMAXPROCS 1")
	want := []string{"map", "fastcache", "cdb", "broken ⚠ wrong values: 12, ⚠ lost entries: 3"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("rows %q, want %q", got, want)
	}
	// The file store's insert ran on one goroutine (Procs 1) but belongs
	// to the GOMAXPROCS 2 run too: its row there has an insert figure.
	i := strings.Index(md, "### insert-lookup · GOMAXPROCS 2")
	if i < 0 {
		t.Fatal("no GOMAXPROCS 2 table")
	}
	for _, line := range strings.Split(md[i:], "\n") {
		if strings.HasPrefix(line, "| cdb |") {
			cells := strings.Split(line, "|")
			if ins := strings.TrimSpace(cells[4]); ins != "1.55 ± 0.05 µs" {
				t.Errorf("cdb insert at GOMAXPROCS 2 = %q, want the one-goroutine build figure", ins)
			}
			break
		}
	}
	if strings.Count(md, "### insert-lookup") != 2 {
		t.Errorf("want one insert-lookup table per GOMAXPROCS value:\n%s", md)
	}
	for _, want := range []string{
		"Insert (cdb): build: Set of every key plus Freeze",
		"⚠ broken: flagged, listed last and not ranked",
		"⚠ Failed: lmdb",
		"Get-or-set (a miss sets the key), highest hit ratio first:",
		"| otter | 70.00% | 90.00% | 20.00% |",
		"seed 1",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

func TestGCPauseTable(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, gcFixture("cpu")); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	got := tableRows(t, md, "### 20,000,000 entries")
	want := []string{"freecache", "map", "lmdb ⚠ failed: 1"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("rows %q, want %q (cheapest forced GC first, failures last)", got, want)
	}
	for _, want := range []string{"10.2 ± 0.4 s", "40.0M", "6.00 GiB", "⚠ lmdb: child exited: signal: killed", "19,980 / 20 / 0"} {
		if !strings.Contains(md, want) {
			t.Errorf("gc-pause markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestMarkdownShowsUnknownPhases(t *testing.T) {
	r := runFixture("cpu")
	r.Measurements = append(r.Measurements, Measurement{Adapter: "map", Workload: "insert-lookup", Phase: "scan",
		Procs: 1, Keys: 1000, Samples: samples(0, 0, 5000)})
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "| map | scan | 5.00 µs |") {
		t.Errorf("a phase the renderer does not know is dropped:\n%s", buf.String())
	}
}

func TestFormatters(t *testing.T) {
	cases := []struct{ got, want string }{
		{fmtNs(612.4), "612 ns"},
		{fmtNs(61.24), "61.2 ns"},
		{fmtNs(1234), "1.23 µs"},
		{fmtNs(45_600_000), "45.6 ms"},
		{fmtNs(10.2e9), "10.2 s"},
		{fmtNsSD(Summary{N: 3, Mean: 1234, SD: 56}), "1.23 ± 0.06 µs"},
		{fmtNsSD(Summary{N: 1, Mean: 1234}), "1.23 µs"},
		{fmtNsSD(Summary{}), dash},
		{fmtSISD(Summary{N: 2, Mean: 1.63e6, SD: 4e4}), "1.63M ± 0.04M"},
		{fmtSI(926_000), "926K"},
		{FormatBytes(1.5 * (1 << 30)), "1.50 GiB"},
		{FormatBytes(48), "48 B"},
		{fmtSmall(0), "0"},
		{fmtSmall(0.001), "<0.01"},
		{fmtSmall(2.5), "2.5"},
		{fmtPercent(1), "100%"},
		{fmtPercent(0.99996), ">99.99%"},
		{fmtPercent(0.5), "50.00%"},
		{fmtPercent(-1), dash},
		{FormatInt(20_000_000), "20,000,000"},
		{FormatInt(-1000), "-1,000"},
		{FormatInt(999), "999"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}

func TestInterruptedNamesTheRunCutShort(t *testing.T) {
	r := runFixture("cpu")
	r.Interrupted, r.InterruptedDuring = true, "map: insert-lookup procs=2"
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	if want := "⚠ Interrupted: this result holds only what was measured before the run was cancelled (cut short: map: insert-lookup procs=2)."; !strings.Contains(buf.String(), want) {
		t.Errorf("markdown lacks %q", want)
	}
}
