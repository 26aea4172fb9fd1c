package runner

import (
	"errors"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
)

// probeBatch is the null probe with a GetBatch that answers each key
// with the probe's Get: through batchPass it costs what the batched
// loop itself costs per key, plus the probe's Get (which the single
// lookup floor pays as well).
type probeBatch struct {
	*workloads.Probe
	buf []byte
}

func (p *probeBatch) GetBatch(keys [][]byte, fn func(i int, val []byte, found bool)) error {
	for i, k := range keys {
		v, ok, err := p.Get(p.buf[:0], k)
		if err != nil {
			return err
		}
		p.buf = v
		fn(i, v, ok)
	}
	return nil
}

// BenchmarkBatchFloor times one pass of the 1,000,000-key lookup stream
// over the null probe through the single-lookup loop and through
// batchPass: the difference is what the batched loop adds per key.
func BenchmarkBatchFloor(b *testing.B) {
	s, _ := workloads.DefaultSpec(workloads.InsertLookup)
	w, err := workloads.Generate(s)
	if err != nil {
		b.Fatal(err)
	}
	pb := &probeBatch{Probe: workloads.NewProbe(s.Seed), buf: make([]byte, 0, 64)}
	d := &driver{a: pb, w: w, procs: 1, every: 64}
	for _, c := range []struct {
		name string
		pass func() report.Sample
	}{
		{"lookup", func() report.Sample { s, _ := d.pass(w.LookupStream, opLookup); return s }},
		{"batch", func() report.Sample { s, _ := d.batchPass(pb, w.LookupStream); return s }},
	} {
		b.Run(c.name, func(b *testing.B) {
			ns := 0.0
			for b.Loop() {
				sm := c.pass()
				if sm.Wrong != 0 || sm.Misses != 0 || sm.Errors != 0 {
					b.Fatalf("%+v", sm)
				}
				ns += sm.NsPerOp
			}
			b.ReportMetric(ns/float64(b.N), "ns/key")
		})
	}
}

// batchMap is testMap with a GetBatch made of its Gets, and an error on
// the batch that holds key failKey.
type batchMap struct {
	*testMap
	failKey string
}

func (m *batchMap) GetBatch(keys [][]byte, fn func(i int, val []byte, found bool)) error {
	for _, k := range keys {
		if string(k) == m.failKey {
			return errors.New("batch refused")
		}
	}
	for i, k := range keys {
		v, ok, err := m.Get(nil, k)
		if err != nil {
			return err
		}
		fn(i, v, ok)
	}
	return nil
}

// TestBatchPassCountsLikeLookup: over an adapter that loses keys and
// returns wrong values, batchPass counts the same hits, misses, wrong
// values and hot/cold outcomes as the single-lookup pass, on one
// goroutine and on two, with hot keys and without (getLoop counts the
// two differently); a failed GetBatch is counted as an error.
func TestBatchPassCountsLikeLookup(t *testing.T) {
	for _, name := range []string{"mixed/hotcold", "mixed/uniform"} {
		t.Run(name, func(t *testing.T) { batchCountsLikeLookup(t, gen(t, name)) })
	}
}

func batchCountsLikeLookup(t *testing.T, w *workloads.Workload) {
	for _, procs := range []int{1, 2} {
		tm := &testMap{m: map[string][]byte{}, wrongEvery: 7}
		st := w.OpStream // reads and writes alike, looked up
		// Every third key is stored: the others miss.
		for j := 0; j < w.InsertStream.Len(); j += 3 {
			if err := tm.Set(w.InsertStream.KeyAt(j), w.InsertStream.ValueAt(j)); err != nil {
				t.Fatal(err)
			}
		}
		bm := &batchMap{testMap: tm}
		d := &driver{a: bm, w: w, procs: procs, every: 8}
		tm.gets = 0
		single, err := d.pass(st, opLookup)
		if err != nil {
			t.Fatal(err)
		}
		tm.gets = 0
		batch, err := d.batchPass(bm, st)
		if err != nil {
			t.Fatal(err)
		}
		if procs == 1 && (single.Wrong == 0 || single.Misses == 0 || single.Hits == 0) {
			t.Fatalf("the adapter should hit, miss and return wrong values: %+v", single)
		}
		if procs == 1 && counters(single) != counters(batch) {
			t.Fatalf("procs %d:\nsingle %+v\nbatch  %+v", procs, single, batch)
		}
		if batch.Hits+batch.Misses != int64(st.Len()) || (batch.HotHitRatio < 0) != !w.HasHot() || (batch.ColdHitRatio < 0) != !w.HasHot() {
			t.Fatalf("procs %d: batch %+v", procs, batch)
		}
		if batch.Latency.Samples == 0 {
			t.Fatalf("procs %d: no latency samples", procs)
		}
		bm.failKey = string(st.KeyAt(st.Len() - 1))
		failed, err := d.batchPass(bm, st)
		// A failed GetBatch is an operation that failed: the pass fails.
		if err == nil {
			t.Fatalf("procs %d: a failing GetBatch did not fail the pass", procs)
		}
		// Every batch holding the key fails as a whole: its keys are
		// neither hits nor misses.
		var errs, lost int64
		for _, part := range st.Split(procs) {
			for n := 0; n < part.Len(); n += batchSize {
				hi := min(n+batchSize, part.Len())
				for j := n; j < hi; j++ {
					if string(part.KeyAt(j)) == bm.failKey {
						errs, lost = errs+1, lost+int64(hi-n)
						break
					}
				}
			}
		}
		if errs == 0 || failed.Errors != errs || failed.Hits+failed.Misses != int64(st.Len())-lost {
			t.Fatalf("procs %d: failed batch %+v", procs, failed)
		}
	}
}

// counters is s without its timing and allocation fields.
func counters(s report.Sample) report.Sample {
	s.NsPerOp, s.OpsPerSec, s.Latency, s.AllocsPerOp, s.BytesPerOp = 0, 0, report.Latency{}, 0, 0
	return s
}

var _ engine.BatchGetter = (*batchMap)(nil)
