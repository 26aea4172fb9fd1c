package runner

import (
	"context"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	_ "github.com/cachebench/cachebench/internal/engine/adapters"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
)

type nopSampler struct{ n int }

func (s *nopSampler) record(time.Duration) { s.n++ }

func (s *nopSampler) past(time.Duration, int) bool { return false }

func nullAdapter(tb testing.TB, seed uint64) engine.Adapter {
	tb.Helper()
	f, err := engine.Lookup("null")
	if err != nil {
		tb.Fatal(err)
	}
	a, err := f.New(engine.Options{Entries: 1, MemoryBytes: 1, Seed: seed})
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// emptyGet's Get returns at once. It is reached through a package
// variable of interface type, so the compiler cannot see which Get it
// calls and devirtualize the call, as it cannot in the runner.
type emptyGet struct{}

func (emptyGet) Get(dst, key []byte) ([]byte, bool, error) { return dst, true, nil }

var emptyGetter interface {
	Get(dst, key []byte) ([]byte, bool, error)
} = emptyGet{}

// BenchmarkFloor times the lookup and insert loops over the null probe at
// 1,000,000 keys: the harness floor without the runner's pass set-up.
func BenchmarkFloor(b *testing.B) {
	s, _ := workloads.DefaultSpec(workloads.InsertLookup)
	w, err := workloads.Generate(s)
	if err != nil {
		b.Fatal(err)
	}
	a := nullAdapter(b, s.Seed)
	c := &checker{}
	b.Run("lookup", func(b *testing.B) {
		var t tally
		buf := make([]byte, 0, 64)
		smp := &nopSampler{}
		start := time.Now()
		for i := 0; i < b.N; i++ {
			buf = getLoop(a, w.LookupStream, c, buf, 64, smp, &t)
		}
		b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*w.LookupStream.Len()), "ns/key")
		if t.wrong != 0 || t.misses != 0 || t.errs != 0 {
			b.Fatalf("wrong %d misses %d errors %d (%v)", t.wrong, t.misses, t.errs, t.firstErr)
		}
	})
	// The cost of the interface call alone: the same walk of the stream
	// and one call per operation to a Get that returns at once, nothing
	// checked. No loop through an engine.Adapter can cost less; it bounds
	// how small the floor can get next to a cache's lookup.
	b.Run("emptycall", func(b *testing.B) {
		g := emptyGetter
		st := w.LookupStream
		buf := make([]byte, 0, 64)
		var odd int
		start := time.Now()
		for i := 0; i < b.N; i++ {
			ops, keys, from := st.Ops, st.Keys, st.Start
			for j := range ops {
				end := ops[j].KeyEnd
				v, ok, err := g.Get(buf[:0], keys[from:end:end])
				from, buf = end, v
				if !ok || err != nil {
					odd++
				}
			}
		}
		b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*st.Len()), "ns/key")
		if odd != 0 {
			b.Fatalf("%d calls failed", odd)
		}
	})
	b.Run("insert", func(b *testing.B) {
		var t tally
		smp := &nopSampler{}
		start := time.Now()
		for i := 0; i < b.N; i++ {
			setLoop(a, w.InsertStream, 64, smp, &t)
		}
		b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*w.InsertStream.Len()), "ns/key")
	})
}

// TestFloorRunsNull: with Floor set the null probe is measured first,
// passes verification, and costs less than a real adapter.
func TestFloorRunsNull(t *testing.T) {
	cfg := baseConfig(t, []string{"test-map"}, workloads.InsertLookup, "get-or-set/zipf")
	cfg.Floor, cfg.Procs, cfg.Count = true, []int{1}, 1
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Measurements[0].Adapter != engine.ProbeName {
		t.Fatalf("first measurement is %s, want the floor", res.Measurements[0].Adapter)
	}
	for _, ph := range []report.Phase{report.PhaseInsert, report.PhaseLookup} {
		m := find(t, res, engine.ProbeName, workloads.InsertLookup, ph, 1)
		if m.Flags != nil || m.Samples[0].NsPerOp <= 0 {
			t.Fatalf("floor %s: flags %v, sample %+v", ph, m.Flags, m.Samples[0])
		}
	}
	look := find(t, res, engine.ProbeName, workloads.InsertLookup, report.PhaseLookup, 1).Samples[0]
	if look.Hits != look.Ops || look.Wrong != 0 {
		t.Fatalf("floor lookups: %+v", look)
	}
	gos := find(t, res, engine.ProbeName, "get-or-set/zipf", report.PhaseGetOrSet, 1).Samples[0]
	if gos.HitRatio != 1 || gos.Wrong != 0 {
		t.Fatalf("floor get-or-set: %+v", gos)
	}
}
