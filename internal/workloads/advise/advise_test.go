package advise

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	_ "github.com/cachebench/cachebench/internal/engine/adapters"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/trace"
	"github.com/cachebench/cachebench/internal/workloads/trace/published"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// slowAdapter is an adapter whose every Get spins for a fixed time
// first: it holds what lru holds, so only its speed can lose it the
// verdict.
type slowAdapter struct {
	engine.Adapter
	spin time.Duration
}

func (s slowAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	for t0 := time.Now(); time.Since(t0) < s.spin; {
	}
	return s.Adapter.Get(dst, key)
}

// The test-only adapters: two registered copies of lru (identical in
// everything but their names) and lru made slow.
func init() {
	lru, err := engine.Lookup("lru")
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"advise-twin-a", "advise-twin-b"} {
		engine.Register(engine.Factory{Name: name, Kind: engine.InMemory, TestOnly: true, Description: "test only: lru", New: lru.New})
	}
	engine.Register(engine.Factory{Name: "advise-slow", Kind: engine.InMemory, TestOnly: true, Description: "test only: lru, 20 µs per Get",
		New: func(o engine.Options) (engine.Adapter, error) {
			a, err := lru.New(o)
			if err != nil {
				return nil, err
			}
			return slowAdapter{Adapter: a, spin: 20 * time.Microsecond}, nil
		}})
}

// tiny is a question small enough to answer in well under a second per
// adapter.
func tiny(adapters string) Options {
	return Options{
		Keys: 2000, ValueSize: "64", Access: mustAccess("zipf"), Capacity: "10%", ReadRatio: 0.9, CPU: 1,
		MissPenalty: 100 * time.Microsecond, Adapters: adapters, Budget: time.Minute, Seed: 1, NoGC: true,
	}
}

func mustAccess(s string) Access {
	a, err := ParseAccess(s)
	if err != nil {
		panic(err)
	}
	return a
}

func TestParseAccess(t *testing.T) {
	good := map[string]Access{
		"zipf":             {Dist: workloads.Zipf, ZipfS: 1.1},
		"zipf:1.5":         {Dist: workloads.Zipf, ZipfS: 1.5},
		"hotcold":          {Dist: workloads.HotCold, HotKeys: 0.2, HotAccess: 0.8},
		"hotcold:0.1/0.9":  {Dist: workloads.HotCold, HotKeys: 0.1, HotAccess: 0.9},
		"hotcold:10%/90%":  {Dist: workloads.HotCold, HotKeys: 0.1, HotAccess: 0.9},
		"uniform":          {Dist: workloads.Uniform},
		"trace:lirs/cs":    {Trace: "lirs/cs"},
		"trace:lirs:x.trc": {Trace: "lirs:x.trc"},
	}
	for in, want := range good {
		a, err := ParseAccess(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if a.Dist != want.Dist || a.Trace != want.Trace || (want.ZipfS != 0 && a.ZipfS != want.ZipfS) ||
			(want.HotKeys != 0 && (a.HotKeys != want.HotKeys || a.HotAccess != want.HotAccess)) {
			t.Errorf("%s: got %+v, want %+v", in, a, want)
		}
	}
	for _, in := range []string{"", "zipfian", "zipf:1", "zipf:x", "hotcold:0.2", "hotcold:2/0.8", "uniform:3", "trace:", "lru"} {
		if _, err := ParseAccess(in); err == nil || !strings.Contains(err.Error(), "--access") {
			t.Errorf("%q: error %v, want one naming --access", in, err)
		}
	}
}

// TestBadInput checks every question refused before anything runs.
func TestBadInput(t *testing.T) {
	cases := map[string]struct {
		edit func(*Options)
		want string
	}{
		"capacity above the keys":   {func(o *Options) { o.Capacity = "5000" }, "above the 2000 keys"},
		"capacity bytes above keys": {func(o *Options) { o.Capacity = "1GiB" }, "above the 2000 keys"},
		"capacity garbage":          {func(o *Options) { o.Capacity = "lots" }, "--capacity"},
		"two capacities":            {func(o *Options) { o.Capacity = "0.1,0.2" }, "give one capacity"},
		"budget too small":          {func(o *Options) { o.Budget = time.Millisecond }, "too small to measure anything"},
		"count below the minimum":   {func(o *Options) { o.Count = 3 }, "--count 4 or more"},
		"unknown adapter":           {func(o *Options) { o.Adapters = "nosuch" }, "--adapters"},
		"file store":                {func(o *Options) { o.Adapters = "mmapstore" }, "in-memory"},
		"cpu":                       {func(o *Options) { o.CPU = 0 }, "--cpu"},
		"read ratio":                {func(o *Options) { o.ReadRatio = 2 }, "--read-ratio"},
		"value size":                {func(o *Options) { o.ValueSize = "big" }, "--value-size"},
		"keys":                      {func(o *Options) { o.Keys = 0 }, "--keys"},
		"unreadable trace":          {func(o *Options) { o.Access = mustAccess("trace:" + filepath.Join(t.TempDir(), "none.csv")) }, "none.csv"},
		"trace capacity in entries": {func(o *Options) { o.Access = mustAccess("trace:lirs:x"); o.Capacity = "100" }, "fraction of its objects"},
	}
	for name, c := range cases {
		o := tiny("lru,otter")
		c.edit(&o)
		res, err := Run(context.Background(), o)
		if res != nil || !IsInput(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: result %v, error %v; want an input error saying %q", name, res != nil, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error spans lines: %q", name, err)
		}
	}
}

// TestBudgetTooSmallSaysWhatFits checks that the refusal names a budget
// with which the plan is accepted.
func TestBudgetTooSmallSaysWhatFits(t *testing.T) {
	s := shape{adapters: 11, keys: 1_000_000, ops: 1_000_000, passes: 2, valueBytes: 1024, procs: 2, gc: true}
	_, err := newPlan(s, time.Second)
	if err == nil {
		t.Fatal("a 1s budget for 11 adapters at 1M keys was accepted")
	}
	var give time.Duration
	for _, w := range strings.Fields(err.Error()) {
		if d, perr := time.ParseDuration(w); perr == nil && d > time.Second {
			give = d
		}
	}
	if give == 0 {
		t.Fatalf("the error names no budget that fits: %v", err)
	}
	if _, err := newPlan(s, give); err != nil {
		t.Fatalf("the budget it names (%v) is refused too: %v", give, err)
	}
}

// TestPlanDefaultFits checks that the newcomer's question at the
// default budget gets every stage with enough repetitions to rank, and
// an estimate within the budget.
func TestPlanDefaultFits(t *testing.T) {
	s := shape{adapters: 11, keys: 1_000_000, ops: 1_000_000, passes: 2, valueBytes: 1024, procs: 2, gc: true}
	p, err := newPlan(s, DefaultBudget)
	if err != nil {
		t.Fatal(err)
	}
	if p.Estimate > DefaultBudget {
		t.Errorf("estimate %v above the budget %v", p.Estimate, DefaultBudget)
	}
	for _, st := range p.Stages {
		if st.Reps == 0 {
			t.Errorf("stage %s left out at the default budget: %s", st.Name, st.Why)
		}
	}
	if g := p.stage("get-or-set"); g.Reps < MinReps {
		t.Errorf("get-or-set ×%d: fewer than the %d repetitions ranks need", g.Reps, MinReps)
	}
	// A smaller budget drops the later stages first, never the first.
	small, err := newPlan(s, DefaultBudget/4)
	if err != nil {
		t.Fatal(err)
	}
	if small.stage("get-or-set").Reps < 1 || small.stage("gc-pause").Reps != 0 {
		t.Errorf("at %v: %s", DefaultBudget/4, small.Describe())
	}
}

// TestVerdictRanks checks the verdict on fixed repetitions: identical
// figures tie, a slower adapter loses.
func TestVerdictRanks(t *testing.T) {
	q := Question{Keys: 1000, ValueMin: 64, ValueMax: 64, MeanValue: 64, Access: mustAccess("zipf"), Entries: 100, Fraction: 0.1, CPU: 1, MissPenalty: time.Microsecond}
	row := func(name string, vals ...float64) Row {
		return Row{Adapter: name, TimePerRequest: vals, TimePerRequestNs: report.Summarize(vals).Mean, ranked: true}
	}
	tied := []Row{row("a", 10, 11, 12, 13, 14), row("b", 10, 11, 12, 13, 14), row("c", 50, 51, 52, 53, 54)}
	rankRows(tied)
	line, winner, names := verdict(q, tied, 5)
	if winner != "a" || len(names) != 2 || !strings.Contains(line, "tied: a and b") || tied[2].Rank != "3" {
		t.Errorf("identical a and b: winner %q, tied %v, ranks %s %s %s; verdict %q", winner, names, tied[0].Rank, tied[1].Rank, tied[2].Rank, line)
	}
	apart := []Row{row("fast", 10, 11, 12, 13, 14), row("slow", 50, 51, 52, 53, 54)}
	rankRows(apart)
	line, winner, names = verdict(q, apart, 5)
	if winner != "fast" || names != nil || strings.Contains(line, "tied") || apart[1].Rank != "2" {
		t.Errorf("fast against slow: winner %q, tied %v; verdict %q", winner, names, line)
	}
	// Too few repetitions: nothing is told apart, and the verdict says why.
	few := []Row{row("fast", 10, 11), row("slow", 50, 51)}
	rankRows(few)
	line, _, names = verdict(q, few, 2)
	if len(names) != 2 || !strings.Contains(line, "fast leads, at 10.5 ns per request with misses (slow 50.5 ns), but with 2 repetitions, fewer than the 4 a rank needs, every rank is a tie") {
		t.Errorf("2 repetitions: tied %v; verdict %q", names, line)
	}
}

// answer runs the tiny question over adapters with MinReps repetitions.
func answer(t *testing.T, adapters string) *Result {
	t.Helper()
	o := tiny(adapters)
	o.Count = MinReps
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSlowAdapterLoses runs the slow copy of lru against lru itself: the
// same hit ratio, 20 µs more per lookup.
func TestSlowAdapterLoses(t *testing.T) {
	res := answer(t, "advise-slow,lru")
	if res.Winner != "lru" || len(res.Tied) > 0 {
		t.Fatalf("winner %q, tied %v; want lru alone: %s", res.Winner, res.Tied, res.Verdict)
	}
	if res.Rows[1].Adapter != "advise-slow" || res.Rows[1].Rank != "2" {
		t.Errorf("second row %s rank %q, want advise-slow ranked 2", res.Rows[1].Adapter, res.Rows[1].Rank)
	}
}

// TestIdenticalAdaptersTie runs two registered copies of lru. Identical
// adapters differ only by noise, which the test at p < 0.05 calls a
// difference about once in twenty runs by chance: a tie is required in
// one of three runs, so that a broken rule (any difference separates)
// fails and chance alone fails about once in 8,000.
func TestIdenticalAdaptersTie(t *testing.T) {
	var verdicts []string
	for try := 0; try < 3; try++ {
		o := tiny("advise-twin-a,advise-twin-b")
		o.Count = 5
		o.Seed = uint64(try + 1)
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tied) == 2 && strings.Contains(res.Verdict, "tied: ") {
			return
		}
		verdicts = append(verdicts, res.Verdict)
	}
	t.Fatalf("two copies of lru were told apart in three runs:\n%s", strings.Join(verdicts, "\n"))
}

// TestUnboundedNotRanked checks that map is shown as unbounded, with its
// reason, and never wins.
func TestUnboundedNotRanked(t *testing.T) {
	res := answer(t, "map,lru")
	if res.Winner != "lru" {
		t.Errorf("winner %q, want lru: %s", res.Winner, res.Verdict)
	}
	last := res.Rows[len(res.Rows)-1]
	if last.Adapter != "map" || !last.Unbounded || last.Rank != "" || last.Held != "unbounded" {
		t.Errorf("map row: %+v", last)
	}
	if !strings.Contains(strings.Join(res.Reasons, "\n"), "map: unbounded, holds everything, not comparable on hit ratio") {
		t.Errorf("reasons: %q", res.Reasons)
	}
	for _, m := range res.Run.Measurements {
		if _, over := m.Flag(report.FlagOverBudget); over && m.Adapter == "map" {
			t.Errorf("map flagged over budget in %s", m.Workload)
		}
	}
}

// TestInterruptedIsPartial cancels the run once the first stage is done:
// the answer holds what was measured, marked partial.
func TestInterruptedIsPartial(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := tiny("lru,otter")
	o.Count = MinReps
	o.Log = func(line string) {
		if strings.HasPrefix(line, "measuring insert-lookup") {
			cancel()
		}
	}
	res, err := Run(ctx, o)
	if !errors.Is(err, context.Canceled) || res == nil || !res.Partial {
		t.Fatalf("result %v, error %v; want a partial result and context.Canceled", res != nil, err)
	}
	if res.Winner == "" || res.Rows[0].TimePerRequestNs <= 0 {
		t.Errorf("the get-or-set figures measured before Ctrl-C are missing: %+v", res.Rows)
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, res); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "**Partial") {
		t.Errorf("markdown does not start by saying it is partial:\n%s", b.String())
	}
}

// TestGolden renders a fixed result (figures as a run would give them,
// made by hand so that nothing varies): verdict, table, reasons, mixed
// line and commands. go test -update rewrites testdata/answer.md.
func TestGolden(t *testing.T) {
	res := fixedResult()
	var b bytes.Buffer
	if err := WriteMarkdown(&b, res); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "answer.md")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("markdown differs from %s (go test -update rewrites it):\n%s", path, b.String())
	}
	var j bytes.Buffer
	if err := WriteJSON(&j, res); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"verdict"`, `"time_per_request_ns"`, `"rss_bytes_per_entry"`, `"commands"`, `"stages"`} {
		if !strings.Contains(j.String(), field) {
			t.Errorf("json lacks %s", field)
		}
	}
}

// fixedResult is a run of three adapters and map over fixed samples:
// shardcache and otter interleave (tied), lru is slower, map unbounded.
func fixedResult() *Result {
	sample := func(ns, hit float64) report.Sample {
		return report.Sample{NsPerOp: ns, Ops: 1000, Hits: int64(math.Round(hit * 1000)), Misses: int64(math.Round((1 - hit) * 1000)), HitRatio: hit,
			Latency: report.Latency{Samples: 10, P99: 2 * ns}, Held: &report.Held{Entries: 100, Bytes: -1, BudgetEntries: 100, Basis: "entries"}}
	}
	gos := func(name string, ns, hit float64, flags ...report.Flag) report.Measurement {
		m := report.Measurement{Adapter: name, Workload: "get-or-set/zipf", Phase: report.PhaseGetOrSet, Procs: 2, Keys: 1000, Flags: flags}
		for i := 0; i < 5; i++ {
			m.Samples = append(m.Samples, sample(ns+float64(i), hit))
		}
		return m
	}
	phase := func(name, workload string, p report.Phase, ns float64) report.Measurement {
		return report.Measurement{Adapter: name, Workload: workload, Phase: p, Procs: 2, Keys: 1000,
			Samples: []report.Sample{{NsPerOp: ns, Ops: 1000, HitRatio: -1, Latency: report.Latency{Samples: 10, P99: 3 * ns}}}}
	}
	mp := gos("map", 100, 1, report.CountedFlag(report.FlagUnbounded, -1))
	for i := range mp.Samples {
		mp.Samples[i].Held = &report.Held{Entries: 1000, Bytes: -1, BudgetEntries: 100, Basis: "entries", Unbounded: true}
	}
	run := &report.Result{Schema: report.SchemaVersion, Kind: report.KindRun, Measurements: []report.Measurement{
		gos("shardcache", 400, 0.9), gos("otter", 400.5, 0.9), gos("lru", 900, 0.8), mp,
	}}
	for _, n := range []string{"shardcache", "otter", "lru", "map"} {
		run.Measurements = append(run.Measurements,
			phase(n, "insert-lookup", report.PhaseInsert, 800), phase(n, "insert-lookup", report.PhaseLookup, 300),
			phase(n, "mixed/zipf", report.PhaseMixed, 350))
	}
	gc := &report.Result{Schema: report.SchemaVersion, Kind: report.KindGCPause}
	for i, n := range []string{"shardcache", "otter", "lru", "map"} {
		gc.GCPause = append(gc.GCPause, report.GCPause{Adapter: n, Entries: 1000, RSSBytesPerEntry: 100 + float64(50*i), ForcedGCSeconds: 0.001 * float64(i+1)})
	}
	res := &Result{
		Question: Question{Keys: 1000, Ops: 1000, ValueMin: 64, ValueMax: 64, MeanValue: 64, Access: mustAccess("zipf"), Capacity: "10%",
			Entries: 100, Fraction: 0.1, ReadRatio: 0.9, CPU: 2, MissPenalty: 100 * time.Microsecond,
			Adapters: []string{"shardcache", "otter", "lru", "map"}, Seed: 1,
			Workloads: []string{"get-or-set/zipf", "insert-lookup", "mixed/zipf"}},
		Plan: Plan{Budget: time.Minute, Stages: []Stage{{Name: "get-or-set", Reps: 5, Ran: 5}, {Name: "insert-lookup", Reps: 1, Ran: 1},
			{Name: "mixed", Reps: 1, Ran: 1}, {Name: "gc-pause", Reps: 1, Ran: 1}}},
		Run: run, GC: gc,
	}
	res.Answer = analyse(res)
	return res
}

// TestTraceQuestion asks the question of a vendored trace: the trace's
// replay ranks, the hit-ratio lab adds OPT, and no mixed pass runs.
func TestTraceQuestion(t *testing.T) {
	o := tiny("lru,shardcache")
	o.Access, o.Count = mustAccess("trace:lirs/cs"), MinReps
	o.ResolveTrace = func(arg string) trace.Source { return published.Resolve(arg, "") }
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.OPT <= 0 || !strings.Contains(res.Verdict, "Belady's OPT hits") || !strings.HasPrefix(res.Verdict, "For trace lirs/cs (1,409 objects") {
		t.Errorf("OPT %v; verdict %q", res.OPT, res.Verdict)
	}
	for _, r := range res.Rows {
		if r.LabHitRatio < 0 || r.LabHitRatio > res.OPT || r.MixedNs != -1 || r.InsertNs <= 0 {
			t.Errorf("row %s: lab hit ratio %v (OPT %v), mixed %v, insert %v", r.Adapter, r.LabHitRatio, res.OPT, r.MixedNs, r.InsertNs)
		}
	}
	if cmds := strings.Join(res.Commands, "\n"); !strings.Contains(cmds, "cachebench hitratio --trace lirs/cs --capacity 0.1") ||
		!strings.Contains(cmds, "--workload trace:lirs/cs") || strings.Contains(cmds, "mixed/") {
		t.Errorf("commands:\n%s", cmds)
	}
}
