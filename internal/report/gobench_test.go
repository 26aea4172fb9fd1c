package report

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func TestGoBenchReadableByBenchfmt(t *testing.T) {
	r := runFixture("Test CPU @ 3.00GHz")
	var buf bytes.Buffer
	if err := WriteGoBench(&buf, r); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{"goos: linux\n", "goarch: amd64\n", "pkg: github.com/cachebench/cachebench\n",
		"cpu: Test CPU @ 3.00GHz\n", "Unit ops/s better=higher\n", "Unit wrong-values assume=exact\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("gobench output lacks %q", want)
		}
	}
	br := benchfmt.NewReader(strings.NewReader(text), "r.txt")
	var n int
	units := map[string]bool{}
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatal(rec)
		case *benchfmt.Result:
			if n == 0 {
				if got := string(rec.Name.Full()); got != "Insert/impl=map/workload=insert-lookup/keys=1000-1" {
					t.Errorf("first name %q", got)
				}
				if rec.Iters != 1000 || rec.GetConfig("cpu") != "Test CPU @ 3.00GHz" {
					t.Errorf("iters %d cpu %q", rec.Iters, rec.GetConfig("cpu"))
				}
				// benchfmt tidies ns/op to sec/op.
				if v, ok := rec.Value("sec/op"); !ok || !near(v, 310e-9) {
					t.Errorf("sec/op %v %v", v, ok)
				}
			}
			for _, v := range rec.Values {
				units[v.Unit] = true
			}
			n++
		}
	}
	if err := br.Err(); err != nil {
		t.Fatal(err)
	}
	var want int
	for _, m := range r.Measurements {
		want += len(m.Samples)
	}
	if n != want {
		t.Errorf("%d benchmark lines, want one per sample (%d)", n, want)
	}
	for _, u := range []string{"sec/op", "ops/s", "allocs/op", "B/op", "hit-ratio", "hot-hit-ratio", "p99-sec", "p99.9-sec", "wrong-values", "lost-entries"} {
		if !units[u] {
			t.Errorf("unit %s missing (have %v)", u, units)
		}
	}
	if !strings.Contains(text, "BenchmarkGetOrSet/impl=otter/workload=get-or-set:hotcold/keys=1000-1 1000 ") {
		t.Errorf("get-or-set line missing or misnamed:\n%s", text)
	}
	if got := br.Units().GetBetter("ops/s"); got != 1 {
		t.Errorf("ops/s better = %d", got)
	}
}

func TestGoBenchRoundTrip(t *testing.T) {
	r := runFixture("Test CPU @ 3.00GHz")
	var buf bytes.Buffer
	if err := WriteGoBench(&buf, r); err != nil {
		t.Fatal(err)
	}
	got, err := ReadGoBench(&buf, "r.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got.Env.CPUModel != r.Env.CPUModel || got.Env.GoVersion != r.Env.GoVersion || got.Env.GitRevision != r.Env.GitRevision ||
		got.Env.LogicalCores != 2 || !got.Started.Equal(r.Started) || got.Duration != r.Duration || got.Config["seed"] != "1" ||
		len(got.Errors) != 1 || got.Errors[0] != r.Errors[0] || got.Kind != KindRun ||
		len(got.Skipped) != 1 || got.Skipped[0] != r.Skipped[0] {
		t.Errorf("result header: %+v", got)
	}
	// Benchmarks of the same name are one measurement in gobench: the
	// file store's one-goroutine insert and open at GOMAXPROCS 1 and 2
	// are pooled. Pool them in the expectation too.
	type key struct {
		phase             Phase
		adapter, workload string
		procs             int
	}
	var want []Measurement
	index := map[key]int{}
	for _, m := range r.Measurements {
		k := key{m.Phase, m.Adapter, m.Workload, m.Procs}
		if i, ok := index[k]; ok {
			want[i].Samples = append(want[i].Samples, m.Samples...)
			continue
		}
		index[k] = len(want)
		m.Samples = append([]Sample(nil), m.Samples...)
		want = append(want, m)
	}
	if len(got.Measurements) != len(want) {
		t.Fatalf("%d measurements, want %d", len(got.Measurements), len(want))
	}
	for i, w := range want {
		g := got.Measurements[i]
		if g.Adapter != w.Adapter || g.Workload != w.Workload || g.Phase != w.Phase || g.Procs != w.Procs || g.Keys != w.Keys {
			t.Errorf("measurement %d: got %s %s %s %d %d, want %s %s %s %d %d", i,
				g.Adapter, g.Workload, g.Phase, g.Procs, g.Keys, w.Adapter, w.Workload, w.Phase, w.Procs, w.Keys)
		}
		if !slices.Equal(g.Flags, w.Flags) {
			t.Errorf("measurement %d flags %v, want %v", i, g.Flags, w.Flags)
		}
		if len(g.Samples) != len(w.Samples) {
			t.Fatalf("measurement %d: %d samples, want %d", i, len(g.Samples), len(w.Samples))
		}
		for j, ws := range w.Samples {
			gs := g.Samples[j]
			for _, metric := range []Metric{MetricNsPerOp, MetricOpsPerSec, MetricAllocsPerOp, MetricBytesPerOp,
				MetricHitRatio, MetricHotHitRatio, MetricColdHitRatio, MetricP50, MetricP99, MetricP999, MetricWrong} {
				wv, wok := ws.Value(metric)
				gv, gok := gs.Value(metric)
				if wok != gok || (wok && !near(wv, gv)) {
					t.Errorf("measurement %d sample %d %s: got %v %v, want %v %v", i, j, metric, gv, gok, wv, wok)
				}
			}
			if gs.Ops != ws.Ops {
				t.Errorf("ops %d, want %d", gs.Ops, ws.Ops)
			}
		}
		if wh, wok := w.HitRatio(); wok {
			if gh, gok := g.HitRatio(); !gok || !near(gh, wh) {
				t.Errorf("measurement %d hit ratio %v, want %v", i, gh, wh)
			}
		}
	}
}

func TestGoBenchGCPauseRoundTrip(t *testing.T) {
	r := gcFixture("cpu")
	var buf bytes.Buffer
	if err := WriteGoBench(&buf, r); err != nil {
		t.Fatal(err)
	}
	got, err := ReadGoBench(&buf, "gc.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != KindGCPause {
		t.Errorf("kind %q", got.Kind)
	}
	// The failed entry has no figures and is not written.
	if len(got.GCPause) != len(r.GCPause)-1 {
		t.Fatalf("%d entries", len(got.GCPause))
	}
	for i, g := range got.GCPause {
		w := r.GCPause[i]
		if g.Adapter != w.Adapter || g.Entries != w.Entries || g.ValueSize != w.ValueSize || g.GOGC != w.GOGC ||
			g.Repetition != w.Repetition || !near(g.ForcedGCSeconds, w.ForcedGCSeconds) || g.HeapObjects != w.HeapObjects ||
			g.PeakRSSBytes != w.PeakRSSBytes || !near(g.GetDuringGC.P999, w.GetDuringGC.P999) || g.Missing != w.Missing {
			t.Errorf("entry %d: got %+v, want %+v", i, g, w)
		}
	}
}

func TestReadGoBenchPlainGoTestOutput(t *testing.T) {
	in := `goos: linux
goarch: amd64
pkg: example.com/x
cpu: Some CPU
BenchmarkGet/fastcache-8   	 5000000	       250.5 ns/op	       0 B/op	       0 allocs/op
BenchmarkGet/fastcache-8   	 5000000	       251.5 ns/op	       0 B/op	       0 allocs/op
BenchmarkSet/dist=zipf/bigcache   	 1000000	      1000 ns/op
PASS
`
	r, err := ReadGoBench(strings.NewReader(in), "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Measurements) != 2 || r.Env.CPUModel != "Some CPU" {
		t.Fatalf("%+v", r)
	}
	m := r.Measurements[0]
	if m.Phase != "get" || m.Adapter != "fastcache" || m.Procs != 8 || len(m.Samples) != 2 || !near(m.Samples[1].NsPerOp, 251.5) {
		t.Errorf("first %+v", m)
	}
	m = r.Measurements[1]
	if m.Phase != "set" || m.Adapter != "bigcache" || m.Workload != "dist=zipf" || m.Procs != 1 || !near(m.Samples[0].OpsPerSec, 1e6) {
		t.Errorf("second %+v", m)
	}
}

func TestReadGoBenchErrorsNameFileAndLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"goos: linux\nBenchmarkGet-2 100 abc ns/op\n", "bad.txt:2:"},
		{"# cachebench env go=unquoted\nBenchmarkGet 1 1 ns/op\n", "bad.txt:1:"},
		{"BenchmarkGet/impl=x/keys=many-1 1 1 ns/op\n", "bad.txt:1:"},
		{"goos: linux\nPASS\n", "no benchmark results"},
	}
	for _, c := range cases {
		_, err := ReadGoBench(strings.NewReader(c.in), "bad.txt")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.in, err, c.want)
		}
	}
}

func TestPhaseNames(t *testing.T) {
	for _, n := range phaseNames {
		if got := PhaseOfBench(n.phase.BenchName()); got != n.phase || !n.phase.Known() {
			t.Errorf("%s -> %s -> %s", n.phase, n.phase.BenchName(), got)
		}
	}
	if PhaseGetOrSet.BenchName() != "GetOrSet" || PhaseLookupCold.BenchName() != "LookupCold" {
		t.Errorf("base names %s %s", PhaseGetOrSet.BenchName(), PhaseLookupCold.BenchName())
	}
	// Phases this version does not know, and other tools' benchmarks,
	// go through the CamelCase rule both ways.
	if p := Phase("warm-up-pass"); p.Known() || PhaseOfBench(p.BenchName()) != p {
		t.Errorf("unknown phase %s -> %s -> %s", p, p.BenchName(), PhaseOfBench(p.BenchName()))
	}
	if PhaseOfBench("Get") != "get" {
		t.Errorf("BenchmarkGet read as phase %q", PhaseOfBench("Get"))
	}
}

// Gobench files written before failures had codes carry them as quoted
// "error" lines; they read back with code "other".
func TestReadGoBenchOldErrorLines(t *testing.T) {
	in := `# cachebench error "lmdb: insert-lookup procs=1: new: open /tmp/x: no space"
BenchmarkLookup/impl=map/workload=insert-lookup/keys=10-1   	 10	       250 ns/op
`
	r, err := ReadGoBench(strings.NewReader(in), "old.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := Failure{Code: FailOther, Adapter: "lmdb", Workload: "insert-lookup", Procs: 1, Message: "new: open /tmp/x: no space"}
	if len(r.Errors) != 1 || r.Errors[0] != want {
		t.Errorf("errors %+v, want %+v", r.Errors, want)
	}
}

// benchstat -col /impl takes the first implementation it reads as the
// base: the floor probe is written last, whatever the run's order.
func TestGoBenchWritesTheFloorLast(t *testing.T) {
	ms := append(insertLookup("null", 1000, 0, 5, 5), insertLookup("map", 1000, 0, 200, 201)...)
	var buf bytes.Buffer
	if err := WriteGoBench(&buf, &Result{Kind: KindRun, Measurements: ms}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	firstMap, firstNull := strings.Index(out, "impl=map"), strings.Index(out, "impl=null")
	if firstMap < 0 || firstNull < firstMap {
		t.Fatalf("map at %d, null at %d:\n%s", firstMap, firstNull, out)
	}
}
