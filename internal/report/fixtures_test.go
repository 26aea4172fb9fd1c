package report

import (
	"time"
)

// sample builds a deterministic sample around ns per op.
func sample(ns float64, hits, misses int64) Sample {
	s := Sample{
		Ops:          hits + misses,
		NsPerOp:      ns,
		OpsPerSec:    1e9 / ns,
		AllocsPerOp:  0,
		BytesPerOp:   0,
		Hits:         hits,
		Misses:       misses,
		HitRatio:     -1,
		HotHitRatio:  -1,
		ColdHitRatio: -1,
		Latency:      Latency{Samples: 1000, P50: ns * 0.9, P99: ns * 3, P999: ns * 10, Max: ns * 50},
	}
	if hits+misses > 0 {
		s.HitRatio = float64(hits) / float64(hits+misses)
	} else {
		s.Ops = 1000
	}
	return s
}

func withWrong(n int64, ss []Sample) []Sample {
	for i := range ss {
		ss[i].Wrong = n
	}
	return ss
}

func samples(hits, misses int64, ns ...float64) []Sample {
	var out []Sample
	for _, n := range ns {
		out = append(out, sample(n, hits, misses))
	}
	return out
}

// runFixture is a run on one CPU with two GOMAXPROCS values, a file store
// whose insert and open ran on one goroutine, an adapter with wrong
// values, a mixed and a get-or-set workload.
func runFixture(cpu string) *Result {
	const keys = 1000
	ms := []Measurement{}
	for _, procs := range []int{1, 2} {
		f := float64(procs)
		ms = append(ms,
			Measurement{Adapter: "map", Workload: "insert-lookup", Phase: PhaseInsert, Procs: procs, Keys: keys,
				Samples: samples(0, 0, 310/f, 320/f, 330/f)},
			Measurement{Adapter: "map", Workload: "insert-lookup", Phase: PhaseLookup, Procs: procs, Keys: keys,
				Samples: samples(1000, 0, 250/f, 260/f, 255/f)},
			Measurement{Adapter: "cdb", Workload: "insert-lookup", Phase: PhaseInsert, Procs: 1, Keys: keys,
				Note:    "build: Set of every key plus Freeze (file finished and fsynced), one goroutine",
				Samples: samples(0, 0, 1500, 1600, 1550)},
			Measurement{Adapter: "cdb", Workload: "insert-lookup", Phase: PhaseOpen, Procs: 1, Keys: keys,
				Note: "close and reopen of the built store",
				Samples: []Sample{{Ops: 1, NsPerOp: 45000, OpsPerSec: 1e9 / 45000, HitRatio: -1, HotHitRatio: -1, ColdHitRatio: -1},
					{Ops: 1, NsPerOp: 47000, OpsPerSec: 1e9 / 47000, HitRatio: -1, HotHitRatio: -1, ColdHitRatio: -1}}},
			Measurement{Adapter: "cdb", Workload: "insert-lookup", Phase: PhaseLookup, Procs: procs, Keys: keys,
				Samples: samples(1000, 0, 1070/f, 1080/f, 1090/f)},
			Measurement{Adapter: "cdb", Workload: "insert-lookup", Phase: PhaseLookupCold, Procs: procs, Keys: keys,
				Note:    "first 100 lookups after dropping the file's pages (posix_fadvise DONTNEED)",
				Samples: samples(100, 0, 52000, 61000, 58000)},
			Measurement{Adapter: "fastcache", Workload: "insert-lookup", Phase: PhaseInsert, Procs: procs, Keys: keys,
				Samples: samples(0, 0, 700/f, 720/f, 710/f)},
			Measurement{Adapter: "fastcache", Workload: "insert-lookup", Phase: PhaseLookup, Procs: procs, Keys: keys,
				Samples: samples(1000, 0, 630/f, 640/f, 620/f)},
			Measurement{Adapter: "broken", Workload: "insert-lookup", Phase: PhaseInsert, Procs: procs, Keys: keys,
				Samples: samples(0, 0, 100, 100, 100)},
			Measurement{Adapter: "broken", Workload: "insert-lookup", Phase: PhaseLookup, Procs: procs, Keys: keys,
				Flags:   []Flag{{FlagWrongValues, 12}, {FlagLostEntries, 3}},
				Samples: withWrong(4, samples(999, 1, 90, 91, 92))},
		)
	}
	mixed := samples(900, 100, 400, 410, 420)
	gos := samples(700, 300, 800, 820, 810)
	for i := range gos {
		gos[i].HotHitRatio, gos[i].ColdHitRatio = 0.9, 0.2
		gos[i].AllocsPerOp, gos[i].BytesPerOp = 1.5, 1200
	}
	gos2 := samples(500, 500, 600, 610, 620)
	for i := range gos2 {
		gos2[i].HotHitRatio, gos2[i].ColdHitRatio = 0.6, 0.1
	}
	ms = append(ms,
		Measurement{Adapter: "map", Workload: "mixed/zipf", Phase: PhaseMixed, Procs: 1, Keys: keys, Samples: mixed},
		Measurement{Adapter: "otter", Workload: "get-or-set/hotcold", Phase: PhaseGetOrSet, Procs: 1, Keys: keys,
			Note: "cache warmed by one untimed pass of the same sequence", Samples: gos},
		Measurement{Adapter: "fastcache", Workload: "get-or-set/hotcold", Phase: PhaseGetOrSet, Procs: 1, Keys: keys,
			Note: "cache warmed by one untimed pass of the same sequence", Samples: gos2},
	)
	return &Result{
		Schema:   SchemaVersion,
		Tool:     "cachebench",
		Kind:     KindRun,
		Started:  time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC),
		Duration: Duration(83 * time.Second),
		Env: Env{
			CPUModel: cpu, LogicalCores: 2, GOMAXPROCS: 2, GoVersion: "go1.26.0", GOOS: "linux", GOARCH: "amd64",
			Kernel: "6.8.0", GOGC: "default", GOMEMLIMIT: "default",
			Modules:     map[string]string{"github.com/VictoriaMetrics/fastcache": "v1.13.0"},
			GitRevision: "0123456789abcdef0123456789abcdef01234567", TimerCostNs: 21.5,
		},
		Config:       map[string]string{"seed": "1", "keys": "1000", "count": "3"},
		Adapters:     map[string]map[string]string{"map@insert-lookup": {"entries": "1000"}},
		Errors:       []Failure{{Code: FailNew, Adapter: "lmdb", Workload: "insert-lookup", Procs: 1, Message: "new: mdb_env_open: no space left"}},
		Skipped:      []string{"cdb: mixed/zipf: a write-once store, and the mixed scenario writes after the build"},
		Measurements: ms,
	}
}

func gcFixture(cpu string) *Result {
	var ps []GCPause
	for rep := 0; rep < 2; rep++ {
		f := float64(rep)
		ps = append(ps,
			GCPause{Adapter: "map", Entries: 20_000_000, ValueSize: 100, GOGC: 10, Repetition: rep,
				FillSeconds: 30 + f, PauseCount: 120, PauseMaxSeconds: 80e-6 + f*1e-6, PauseTotalSeconds: 2e-3,
				ForcedGCSeconds: 10 + f/2, FillGCCPUSeconds: 80, ForcedGCCPUSecond: 19, HeapObjects: 40_000_000,
				HeapInUseBytes: 5 << 30, PeakRSSBytes: 6 << 30, RSSBytesPerEntry: 322.1,
				GetDuringGC: Latency{Samples: 1000, P99: 2500, P999: 90000}, Verified: 10000},
			GCPause{Adapter: "freecache", Entries: 20_000_000, ValueSize: 100, GOGC: 10, Repetition: rep,
				FillSeconds: 12 + f, PauseCount: 30, PauseMaxSeconds: 40e-6, PauseTotalSeconds: 4e-4,
				ForcedGCSeconds: 0.008 + f/1000, FillGCCPUSeconds: 0.5, ForcedGCCPUSecond: 0.01, HeapObjects: 2000,
				HeapInUseBytes: 3 << 30, PeakRSSBytes: 3<<30 + 1<<29, RSSBytesPerEntry: 187.9,
				GetDuringGC: Latency{Samples: 1000, P99: 900, P999: 2000}, Verified: 9990, Missing: 10},
		)
	}
	ps = append(ps, GCPause{Adapter: "lmdb", Entries: 20_000_000, ValueSize: 100, GOGC: 10, Error: "child exited: signal: killed"})
	return &Result{
		Schema:  SchemaVersion,
		Tool:    "cachebench",
		Kind:    KindGCPause,
		Started: time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC),
		Env: Env{CPUModel: cpu, LogicalCores: 2, GOMAXPROCS: 2, GoVersion: "go1.26.0", GOOS: "linux", GOARCH: "amd64",
			GOMEMLIMIT: "default", GitRevision: "fedcba9876543210-dirty"},
		Config:  map[string]string{"entries": "20000000", "count": "2"},
		GCPause: ps,
	}
}
