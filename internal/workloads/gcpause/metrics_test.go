package gcpause

import (
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
)

func hist(counts ...uint64) *metrics.Float64Histogram {
	return &metrics.Float64Histogram{
		Counts:  counts,
		Buckets: []float64{math.Inf(-1), 0, 10e-6, 20e-6, 40e-6, math.Inf(1)},
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

func TestPauseDelta(t *testing.T) {
	before := hist(0, 3, 1, 0, 0)
	after := hist(0, 5, 1, 4, 0)
	st, err := PauseDelta(before, after)
	if err != nil {
		t.Fatal(err)
	}
	// New: 2 pauses in [0,10µs) (mid 5µs), 4 in [20,40µs) (mid 30µs).
	if st.Count != 6 || !near(st.MaxSeconds, 40e-6) || !near(st.TotalSeconds, 2*5e-6+4*30e-6) {
		t.Fatalf("delta = %+v", st)
	}

	// A pause in the open-ended top bucket: max and total use its lower bound.
	st, err = PauseDelta(nil, hist(0, 0, 0, 0, 2))
	if err != nil || st.Count != 2 || !near(st.MaxSeconds, 40e-6) || !near(st.TotalSeconds, 80e-6) {
		t.Fatalf("open-ended bucket: %+v, %v", st, err)
	}

	// Nothing new: all zero.
	st, err = PauseDelta(after, after)
	if err != nil || st != (PauseStats{}) {
		t.Fatalf("no new pauses: %+v, %v", st, err)
	}
}

func TestPauseDeltaRejectsMismatch(t *testing.T) {
	other := hist(0, 0, 0, 0, 0)
	other.Buckets = append([]float64(nil), other.Buckets...)
	other.Buckets[2] = 11e-6
	cases := map[string][2]*metrics.Float64Histogram{
		"missing after":    {nil, nil},
		"different shape":  {hist(0, 1, 0, 0), hist(0, 1, 0, 0, 0)},
		"different bounds": {other, hist(0, 0, 0, 0, 0)},
		"counts went down": {hist(0, 2, 0, 0, 0), hist(0, 1, 0, 0, 0)},
		"malformed":        {nil, {Counts: []uint64{1, 2}, Buckets: []float64{0, 1}}},
	}
	for name, c := range cases {
		if _, err := PauseDelta(c[0], c[1]); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestSnapshotSeesForcedGC(t *testing.T) {
	s0, err := ReadSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	s1, err := ReadSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	st, err := PauseDelta(s0.Pauses, s1.Pauses)
	if err != nil {
		t.Fatal(err)
	}
	// A cycle stops the world twice (sweep termination, mark termination).
	if st.Count < 2 || st.MaxSeconds <= 0 || st.TotalSeconds <= 0 {
		t.Fatalf("pauses of one forced GC: %+v", st)
	}
	if s1.GCCycles <= s0.GCCycles || s1.GCCPUSeconds <= s0.GCCPUSeconds {
		t.Fatalf("cycles %d→%d, GC CPU %v→%v", s0.GCCycles, s1.GCCycles, s0.GCCPUSeconds, s1.GCCPUSeconds)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if s1.HeapObjects == 0 || s1.HeapInUseBytes == 0 {
		t.Fatalf("heap figures empty: %+v (MemStats HeapInuse %d)", s1, ms.HeapInuse)
	}
}

const statusText = `Name:	cachebench
Umask:	0022
State:	R (running)
VmPeak:	 1236540 kB
VmSize:	 1236540 kB
VmHWM:	   54432 kB
VmRSS:	   51200 kB
Threads:	5
`

func TestParseProcStatus(t *testing.T) {
	got, err := ParseProcStatus(strings.NewReader(statusText), "VmHWM")
	if err != nil || got != 54432*1024 {
		t.Fatalf("VmHWM = %d, %v", got, err)
	}
	got, err = ParseProcStatus(strings.NewReader(statusText), "VmRSS")
	if err != nil || got != 51200*1024 {
		t.Fatalf("VmRSS = %d, %v", got, err)
	}
	bad := map[string]string{
		"missing":    "Name:\tx\nVmRSS:\t1 kB\n",
		"no unit":    "VmHWM:\t123\n",
		"wrong unit": "VmHWM:\t123 MB\n",
		"not number": "VmHWM:\tlots kB\n",
		"negative":   "VmHWM:\t-5 kB\n",
		"overflow":   "VmHWM:\t18446744073709551615 kB\n",
		"empty":      "",
	}
	for name, text := range bad {
		if v, err := ParseProcStatus(strings.NewReader(text), "VmHWM"); err == nil {
			t.Errorf("%s: got %d, want an error", name, v)
		}
	}
}

func TestReadProcStatusLive(t *testing.T) {
	if _, err := os.Stat(ProcStatusPath); err != nil {
		t.Skip("no", ProcStatusPath)
	}
	hwm, err := ReadProcStatus("VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	rss, err := ReadProcStatus("VmRSS")
	if err != nil {
		t.Fatal(err)
	}
	peak, err := PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	// VmHWM may lag VmRSS by a few pages (see PeakRSS).
	if rss == 0 || hwm == 0 || peak < rss || peak < hwm {
		t.Fatalf("VmHWM %d, VmRSS %d, PeakRSS %d", hwm, rss, peak)
	}
}
