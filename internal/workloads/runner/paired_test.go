package runner

import (
	"flag"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/workloads"
)

var (
	pairedAdapters = flag.String("paired.adapters", "null,map,fastcache,shardcache,mmapstore", "adapters BenchmarkPaired measures, comma-separated")
	pairedKeys     = flag.Int("paired.keys", 1_000_000, "key space of BenchmarkPaired's insert-lookup data")
	pairedChunks   = flag.Int("paired.chunks", 8, "parts each lap of BenchmarkPaired is timed in, pair by pair")
)

// BenchmarkPaired measures what the runner adds to a lookup, with the
// machine's own drift taken out. On a shared machine one cache instance
// can look up twice as slow from one moment to the next (one shardcache
// instance's time per lookup over parts of 125,000 lookups:
// results/measure/bare-loop-crosscheck.txt),
// so two processes, or two instances, compare mostly the moments they ran
// in. Here each adapter is built once, as the runner builds it (its
// budget, its insert pass), and its lookups are then timed in
// alternating parts of laps over the same instance and the same lookup
// stream: one part through the runner's own pass (driver.pass, exactly
// what `cachebench run` times), the same part through the plainest loop
// that calls the adapter's Get, reads the next key from the stream and
// fails on a miss or a wrong value. Each b.N iteration is one lap, in
// -paired.chunks pairs of parts; the metrics are the median of each
// side, the median of the per-pair ratio and their coefficients of
// variation. Run it with -benchtime Nx for N laps (scripts/crosscheck.sh
// does; the testing package first runs one more, with b.N = 1, whose
// figures it discards).
//
// The adapter's own wrapper is in both loops: calling the libraries
// directly is BenchmarkLookup's job (bare_test.go).
func BenchmarkPaired(b *testing.B) {
	s, err := workloads.DefaultSpec(workloads.InsertLookup)
	if err != nil {
		b.Fatal(err)
	}
	s.Keys = *pairedKeys
	w, err := workloads.Generate(s)
	if err != nil {
		b.Fatal(err)
	}
	for name := range strings.SplitSeq(*pairedAdapters, ",") {
		d, release := pairedDriver(b, w, name)
		b.Run("impl="+name, func(b *testing.B) {
			p := pairedLaps(b, d, w.LookupStream, b.N)
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(median(p.run), "run-ns/op")
			b.ReportMetric(median(p.bare), "bare-ns/op")
			b.ReportMetric(median(p.ratio), "run/bare")
			b.ReportMetric(cov(p.run), "run-cov%")
			b.ReportMetric(cov(p.bare), "bare-cov%")
			b.ReportMetric(cov(p.ratio), "ratio-cov%")
			b.ReportMetric(slices.Min(p.bare), "bare-min-ns/op")
			b.ReportMetric(slices.Max(p.bare), "bare-max-ns/op")
		})
		release()
	}
}

// pairedDriver builds adapter name as the runner does for one
// repetition: its budget, the timed insert pass (the build and freeze of
// a file store), a reopen for a file store, and the runner's warm-up.
func pairedDriver(b testing.TB, w *workloads.Workload, name string) (*driver, func()) {
	f, err := engine.Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	opts := w.Budget()
	opts.Seed = w.Spec.Seed
	opts.Dir = b.TempDir()
	a, err := f.New(opts)
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	d := &driver{a: a, w: w, procs: 1, every: 64}
	if _, _, err := d.insert(w.InsertStream); err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	if fb, ok := a.(engine.FileBacked); ok {
		if err := fb.Reopen(); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
	}
	d.warm(w.LookupStream, 0.1, opLookup)
	return d, func() {
		if err := a.Close(); err != nil {
			b.Errorf("%s: close: %v", name, err)
		}
		runtime.GC()
	}
}

// pairedLaps times n laps of st, each lap cut into chunks parts that
// are timed in pairs, one part through the runner's pass and then the
// same part through the bare loop, or the other way round in every other
// pair, so that neither side always runs right after the other. Pairs
// of parts a few tens of milliseconds long leave the machine less time to
// drift between the two sides of a pair than pairs of whole laps.
func pairedLaps(b testing.TB, d *driver, st *workloads.Stream, n int) laps {
	var l laps
	chunks := max(1, min(*pairedChunks, st.Len()))
	for i := range n {
		for c := range chunks {
			part := st.Slice(st.Len()*c/chunks, st.Len()*(c+1)/chunks)
			var r, p float64
			if (i+c)%2 == 0 {
				r = runnerLap(b, d, part)
				p = bareLap(b, d.a, part)
			} else {
				p = bareLap(b, d.a, part)
				r = runnerLap(b, d, part)
			}
			l.run, l.bare, l.ratio = append(l.run, r), append(l.bare, p), append(l.ratio, r/p)
		}
	}
	return l
}

// laps holds each pair's ns per lookup through the runner and through
// the bare loop, and their ratio.
type laps struct{ run, bare, ratio []float64 }

// runnerLap is one pass of the runner over st; a lookup that misses or
// returns a wrong value fails the benchmark.
func runnerLap(b testing.TB, d *driver, st *workloads.Stream) float64 {
	s := d.pass(st, opLookup)
	if s.Hits != s.Ops || s.Wrong != 0 || s.Errors != 0 {
		b.Fatalf("%s: runner lap: %d of %d hits, %d wrong, %d errors", d.a.Name(), s.Hits, s.Ops, s.Wrong, s.Errors)
	}
	return s.NsPerOp
}

// bareLap is the plainest loop over st: after a GC, as the runner's pass,
// the next key is the next bytes of the stream, the value is appended to
// a reused buffer and checked from its end tags.
func bareLap(b testing.TB, a engine.Adapter, st *workloads.Stream) float64 {
	ops, keys, start := st.Ops, st.Keys, st.Start
	buf := make([]byte, 0, 64)
	runtime.GC()
	t0 := time.Now()
	for j := range ops {
		end := ops[j].KeyEnd
		v, ok, err := a.Get(buf[:0], keys[start:end:end])
		if err != nil || !ok || !workloads.CheckTag(v, ops[j].Tag) {
			b.Fatalf("%s: bare lap: key %q: found %v, error %v", a.Name(), keys[start:end], ok, err)
		}
		buf, start = v, end
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(len(ops))
}

// cov is the coefficient of variation of xs in percent.
func cov(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var sum, ss float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return 100 * math.Sqrt(ss/float64(len(xs)-1)) / mean
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// TestPairedFindsEveryKey runs BenchmarkPaired's laps over a small key
// space, so that the benchmark cannot silently time misses.
func TestPairedFindsEveryKey(t *testing.T) {
	w := gen(t, workloads.InsertLookup)
	for _, name := range []string{"null", "map", "mmapstore"} {
		t.Run(name, func(t *testing.T) {
			d, release := pairedDriver(t, w, name)
			defer release()
			p := pairedLaps(t, d, w.LookupStream, 2)
			if want := 2 * max(1, min(*pairedChunks, w.LookupStream.Len())); len(p.ratio) != want || median(p.run) <= 0 || median(p.bare) <= 0 {
				t.Fatalf("%s: %+v", name, p)
			}
		})
	}
}
