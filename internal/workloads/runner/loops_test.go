package runner

import (
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	_ "github.com/cachebench/cachebench/internal/engine/adapters"
	"github.com/cachebench/cachebench/internal/workloads"
)

type nopSampler struct{ n int }

func (s *nopSampler) record(time.Duration) { s.n++ }

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

// BenchmarkFloor times the lookup and insert loops over the null probe at
// 1,000,000 keys: the harness floor without the runner's pass set-up.
func BenchmarkFloor(b *testing.B) {
	s, _ := workloads.DefaultSpec(workloads.InsertLookup)
	w, err := workloads.Generate(s)
	if err != nil {
		b.Fatal(err)
	}
	a := nullAdapter(b, s.Seed)
	c := &checker{codec: w.Codec}
	b.Run("lookup", func(b *testing.B) {
		var t tally
		buf := make([]byte, 0, 64)
		smp := &nopSampler{}
		start := time.Now()
		for i := 0; i < b.N; i++ {
			buf = getLoop(a, w.LookupStream, c, buf, 64, smp, &t)
		}
		b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*w.LookupStream.Len()), "ns/key")
		if t.wrong != 0 || t.misses != 0 {
			b.Fatalf("wrong %d misses %d", t.wrong, t.misses)
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
