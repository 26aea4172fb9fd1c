package machine

import (
	"os"
	"testing"
)

func TestParseTHPMode(t *testing.T) {
	for in, want := range map[string]string{
		"always [madvise] never\n": "madvise",
		"[always] madvise never":   "always",
		"always madvise [never]":   "never",
	} {
		got, err := ParseTHPMode(in)
		if err != nil || got != want {
			t.Errorf("ParseTHPMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "always madvise never", "[]"} {
		if got, err := ParseTHPMode(bad); err == nil {
			t.Errorf("ParseTHPMode(%q) = %q, want an error", bad, got)
		}
	}
}

func TestTHPModeOnThisMachine(t *testing.T) {
	if _, err := os.Stat(THPPath); err != nil {
		t.Skip("no THP on this machine")
	}
	mode, err := THPMode()
	if err != nil || (mode != "always" && mode != "madvise" && mode != "never") {
		t.Fatalf("THPMode() = %q, %v", mode, err)
	}
}

// TestDependentLoadShape checks the measurement on a small region (a
// cache hit per load, well under a microsecond) and its argument checks;
// the DRAM figure itself is measured by runs, not by tests.
func TestDependentLoadShape(t *testing.T) {
	ns, err := DependentLoadNs(1<<16, 1<<16)
	if err != nil || ns <= 0 || ns > 1000 {
		t.Fatalf("DependentLoadNs(64 KiB) = %v, %v", ns, err)
	}
	if _, err := DependentLoadNs(64, 10); err == nil {
		t.Fatal("a one-line region was accepted")
	}
	if _, err := DependentLoadNs(1<<16, 0); err == nil {
		t.Fatal("zero loads were accepted")
	}
}

func TestParseCacheSize(t *testing.T) {
	for in, want := range map[string]int{"32K": 32 << 10, "266240K": 266240 << 10, "8M": 8 << 20, "512": 512} {
		if got, err := parseCacheSize(in); err != nil || got != want {
			t.Errorf("parseCacheSize(%q) = %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "K", "-1K", "x"} {
		if _, err := parseCacheSize(bad); err == nil {
			t.Errorf("parseCacheSize(%q) accepted", bad)
		}
	}
	if r := RegionBytes(); r < DefaultRegionBytes || r > MaxRegionBytes {
		t.Fatalf("RegionBytes() = %d", r)
	}
}

func TestCycleVisitsEveryLine(t *testing.T) {
	const lines = 1024
	next := make([]uint64, lines*lineWords)
	cycle(next, lines)
	seen := make([]bool, lines)
	p := uint64(0)
	for step := 0; step < lines; step++ {
		l := p / lineWords
		if seen[l] {
			t.Fatalf("line %d visited twice within one lap (step %d)", l, step)
		}
		seen[l] = true
		p = chase(next, p, 1)
	}
	if p != 0 {
		t.Fatalf("after %d steps the chase is at word %d, not back at 0", lines, p)
	}
}

func BenchmarkDependentLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		ns, err := DependentLoadNs(RegionBytes(), DefaultLoads)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(ns, "ns/load")
	}
}

func TestParseAnonHuge(t *testing.T) {
	rollup := "55d0c0a00000-7ffd3a5f1000 ---p 00000000 00:00 0                          [rollup]\n" +
		"Rss:              301264 kB\nAnonymous:        290340 kB\nAnonHugePages:     45056 kB\nShmemPmdMapped:        0 kB\n"
	for in, want := range map[string]int64{
		rollup:                    45056 << 10,
		"AnonHugePages:  0 kB":    0,
		"AnonHugePages:\t2048 kB": 2 << 20,
	} {
		if got, err := ParseAnonHuge(in); err != nil || got != want {
			t.Errorf("ParseAnonHuge(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "Rss: 4 kB\n", "AnonHugePages: 12\n", "AnonHugePages: -4 kB\n", "AnonHugePages: 4 MB\n", "AnonHugePages: 99999999999999999999 kB\n", "AnonHugePages: 9007199254740992 kB\n"} {
		if got, err := ParseAnonHuge(bad); err == nil {
			t.Errorf("ParseAnonHuge(%q) = %d, want an error", bad, got)
		}
	}
}

func FuzzParseAnonHuge(f *testing.F) {
	f.Add("AnonHugePages:     45056 kB\n")
	f.Add("Rss: 1 kB\nAnonHugePages: 0 kB")
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := ParseAnonHuge(s); err == nil && (n < 0 || n%1024 != 0) {
			t.Fatalf("ParseAnonHuge(%q) = %d: not a whole number of kB", s, n)
		}
	})
}

func TestAnonHugeBytesOnThisMachine(t *testing.T) {
	if _, err := os.Stat(SmapsRollupPath); err != nil {
		t.Skip("no smaps_rollup on this machine")
	}
	if n, err := AnonHugeBytes(); err != nil || n < 0 {
		t.Fatalf("AnonHugeBytes() = %d, %v", n, err)
	}
}
