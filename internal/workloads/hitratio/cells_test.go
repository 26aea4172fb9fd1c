package hitratio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/workloads/trace"
	"github.com/cachebench/cachebench/internal/workloads/trace/published"
)

// failingGets fails every Get after its first hundred: a cache whose
// replay breaks half-way.
type failingGets struct{ n int }

func (f *failingGets) Name() string              { return "fails-gets" }
func (f *failingGets) Set(key, val []byte) error { return nil }
func (f *failingGets) Close() error              { return nil }
func (f *failingGets) Get(dst, key []byte) ([]byte, bool, error) {
	if f.n++; f.n > 100 {
		return dst, false, errors.New("injected failure")
	}
	return dst, false, nil
}

// needsHundred is a cache that cannot be built below 100 entries (as
// some caches have a minimum size).
func needsHundred(o engine.Options) (engine.Adapter, error) {
	if o.Entries < 100 {
		return nil, fmt.Errorf("needs-100: %d entries is below the minimum of 100", o.Entries)
	}
	return &failingGets{n: -1 << 40}, nil
}

func init() {
	engine.Register(engine.Factory{Name: "needs-100", Kind: engine.InMemory, TestOnly: true,
		Description: "test: refuses budgets below 100 entries", New: needsHundred})
	engine.Register(engine.Factory{Name: "fails-gets", Kind: engine.InMemory, TestOnly: true,
		Description: "test: fails every Get after 100",
		New:         func(engine.Options) (engine.Adapter, error) { return &failingGets{}, nil }})
}

// An adapter that cannot be configured at a size, or whose replay fails,
// loses its own cell only: every other cell is reported, and the notes
// give one line per adapter and kind.
func TestNoLostSweep(t *testing.T) {
	var ids []uint64
	for i := 0; i < 20000; i++ {
		ids = append(ids, uint64(i*7%1500))
	}
	p := writeIDs(t, ids, "ids.oracleGeneral")
	caps, _ := ParseCapacities("10,20,0.5")
	res, err := Run(context.Background(), Config{Traces: []TraceInput{{Path: p, Format: trace.Oracle}}, Capacities: caps,
		Adapters: []string{"needs-100", "lru", "fails-gets"}, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Traces[0].Rows
	if len(rows) != 12 || res.Failed != 3 {
		t.Fatalf("%d rows, %d failed", len(rows), res.Failed)
	}
	for _, r := range rows {
		switch {
		case r.Adapter == "needs-100" && r.Capacity != "0.5":
			if r.Unconfigurable == "" || !strings.Contains(r.Unconfigurable, "minimum") || r.Requests != 0 {
				t.Errorf("needs-100 at %s: %+v", r.Capacity, r)
			}
		case r.Adapter == "fails-gets":
			if !strings.Contains(r.Failed, "injected failure") {
				t.Errorf("fails-gets at %s: %+v", r.Capacity, r)
			}
		default:
			if !r.Ran() || r.Requests != 20000 {
				t.Errorf("%s at %s lost: %+v", r.Adapter, r.Capacity, r)
			}
		}
	}
	var out bytes.Buffer
	if err := Write(&out, res, "text"); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"n/c", "failed", "- needs-100, n/c (cannot be configured): 2 cells in 1 traces",
		"- fails-gets, failed: 3 cells in 1 traces"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "needs-100, n/c") != 1 {
		t.Errorf("one note line per adapter and kind:\n%s", text)
	}
}

func TestSuiteCapacities(t *testing.T) {
	names := []string{"lru", "shardcache", "s3fifo"}
	small := trace.Summary{Requests: 10000, Distinct: 1409, DistinctBytes: 1409 * 64, MaxSize: 64}
	caps := SuiteCapacities(names)(small)
	m := MinEntries(names, small)
	// shardcache's 1 KiB floor at 64 + 8 + 48 bytes per entry.
	if m != 9 || len(caps) != 5 || caps[0].Entries != m || caps[4].Entries != 705 {
		t.Errorf("small trace: min %d, capacities %v", m, caps)
	}
	if m := MinEntries([]string{"lru", "sieve"}, small); m != 1 {
		t.Errorf("lru and sieve take any size, got %d", m)
	}
	large := trace.Summary{Requests: 100000, Distinct: 20000, DistinctBytes: 20000 * 64, MaxSize: 64}
	if caps := SuiteCapacities(names)(large); len(caps) != 5 || caps[0].Fraction != 0.01 || caps[4].Fraction != 0.2 {
		t.Errorf("large trace: %v", caps)
	}
}

// The summary measures each adapter against the best unflagged adapter
// of each cell.
func TestSummarize(t *testing.T) {
	row := func(a, c string, hr float64, flagged bool) Row {
		r := Row{Adapter: a, Capacity: c, HitRatio: hr}
		if flagged {
			r.Flags = []Flag{{FlagOverBudget, "x"}}
		}
		return r
	}
	res := &Result{Traces: []TraceResult{
		{Name: "t1", Rows: []Row{row(OPTName, "1", 0.9, false), row("a", "1", 0.5, false), row("b", "1", 0.4, false), row("c", "1", 0.8, true)}},
		{Name: "t2", Rows: []Row{row(OPTName, "1", 0.9, false), row("a", "1", 0.3, false), row("b", "1", 0.6, false), {Adapter: "c", Capacity: "1", Unconfigurable: "no"}}},
	}}
	got := map[string]AdapterSummary{}
	for _, s := range Summarize(res) {
		got[s.Adapter] = s
	}
	if a := got["a"]; a.Cells != 2 || a.MeanBelow < 14.99 || a.MeanBelow > 15.01 || a.WorstBelow < 29.99 || a.Worst != "t2 at 1" || a.Best != 1 {
		t.Errorf("a: %+v", a)
	}
	if b := got["b"]; b.MeanBelow < 4.99 || b.MeanBelow > 5.01 || b.Best != 1 {
		t.Errorf("b: %+v", b)
	}
	if c := got["c"]; c.Cells != 0 || c.Flagged != 1 || c.Unconfigurable != 1 {
		t.Errorf("c: %+v", c)
	}
}

// On a published trace the lru adapter's rows equal an exact LRU's hits,
// computed independently from the trace's LRU stack distances.
func TestLRURowsMatchStackDistances(t *testing.T) {
	tr, ok := published.Lookup("cache2k/web07")
	if !ok {
		t.Fatal("cache2k/web07 is not vendored")
	}
	f, err := tr.Source().Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	stats, err := trace.ComputeStats(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var caps []Capacity
	for _, c := range stats.LRUCapacities {
		caps = append(caps, Capacity{Entries: c})
	}
	res, err := Run(context.Background(), Config{Traces: []TraceInput{tr.Source()}, Capacities: caps, Adapters: []string{"lru"}, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for _, r := range res.Traces[0].Rows {
		if r.Adapter != "lru" {
			continue
		}
		if r.Hits != stats.LRUHits[i] {
			t.Errorf("lru at %d entries: %d hits, stack distances say %d", r.Entries, r.Hits, stats.LRUHits[i])
		}
		i++
	}
	if i != len(caps) {
		t.Errorf("%d lru rows", i)
	}
}

// lazyTrim is a cache that, like one maintained on another goroutine,
// lets Sets in beyond its budget and trims back to it (dropping the
// oldest keys) only when drained.
type lazyTrim struct {
	budget int
	m      map[string][]byte
	order  []string
}

func (l *lazyTrim) Name() string { return "lazy-trim" }
func (l *lazyTrim) Close() error { return nil }
func (l *lazyTrim) Len() int     { return len(l.m) }
func (l *lazyTrim) Get(dst, key []byte) ([]byte, bool, error) {
	v, ok := l.m[string(key)]
	return append(dst, v...), ok, nil
}
func (l *lazyTrim) Set(key, val []byte) error {
	if _, ok := l.m[string(key)]; !ok {
		l.order = append(l.order, string(key))
	}
	l.m[string(key)] = append([]byte(nil), val...)
	return nil
}
func (l *lazyTrim) Drain() {
	for len(l.m) > l.budget {
		delete(l.m, l.order[0])
		l.order = l.order[1:]
	}
}

func init() {
	engine.Register(engine.Factory{Name: "lazy-trim", Kind: engine.InMemory, TestOnly: true,
		Description: "test: trims to its budget only when drained",
		New: func(o engine.Options) (engine.Adapter, error) {
			return &lazyTrim{budget: o.Entries, m: map[string][]byte{}}, nil
		}})
}

// A cache that overshoots its budget between maintenance runs is drained
// after every Set by default, and so measured at its budget; with Async
// it is flagged over budget from the samples taken during the replay,
// although it ends within its budget.
func TestAsyncOvershootIsSampled(t *testing.T) {
	var ids []uint64
	for i := range 20000 {
		ids = append(ids, uint64(i*7919%3000))
	}
	n := normalizeIDs(t, ids)
	b := Capacity{Entries: 100}.Resolve(n.Summary)
	settled, err := replayAdapter(n, "lazy-trim", b, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(settled.Flags) != 0 || settled.Peak > b.Entries+1 || settled.Held != b.Entries {
		t.Errorf("drained after every Set: peak %d, held %d, flags %v", settled.Peak, settled.Held, settled.Flags)
	}
	async, err := replayAdapter(n, "lazy-trim", b, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if async.Held != b.Entries || async.Peak < 10*b.Entries || len(async.Flags) != 1 || async.Flags[0].Kind != FlagOverBudget {
		t.Errorf("async: peak %d, held %d, flags %v", async.Peak, async.Held, async.Flags)
	}
	if async.Hits <= settled.Hits {
		t.Errorf("async held more and hit %d times, drained %d", async.Hits, settled.Hits)
	}
}

// otter and theine evict on their own goroutines; drained after every
// Set they hold their budget at every sample, at the lab's smallest
// sizes too.
func TestAsyncPeersHoldTheirBudget(t *testing.T) {
	var ids []uint64
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50000 {
		ids = append(ids, rng.Uint64N(5000))
	}
	n := normalizeIDs(t, ids)
	for _, name := range []string{"otter", "theine"} {
		for _, entries := range []int{20, 200} {
			b := Capacity{Entries: entries}.Resolve(n.Summary)
			row, err := replayAdapter(n, name, b, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(row.Flags) != 0 || float64(row.Peak) > float64(entries)*overBudgetSlack+1 {
				t.Errorf("%s at %d entries: peak %d, flags %v", name, entries, row.Peak, row.Flags)
			}
		}
	}
}

// panicsLocked panics in its 50th Set while holding the lock its Close
// takes, as a cache with a bug can.
type panicsLocked struct {
	mu   sync.Mutex
	sets int
}

func (p *panicsLocked) Name() string { return "panics-locked" }
func (p *panicsLocked) Get(dst, key []byte) ([]byte, bool, error) {
	return dst, false, nil
}
func (p *panicsLocked) Set(key, val []byte) error {
	p.mu.Lock()
	if p.sets++; p.sets == 50 {
		panic("injected bug")
	}
	p.mu.Unlock()
	return nil
}
func (p *panicsLocked) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return nil
}

func init() {
	engine.Register(engine.Factory{Name: "panics-locked", Kind: engine.InMemory, TestOnly: true,
		Description: "test: panics in a Set with its lock held",
		New:         func(engine.Options) (engine.Adapter, error) { return &panicsLocked{}, nil }})
}

// A cache that panics fails its own cell, promptly: the replay does not
// wait on the Close of a cache whose lock the panic left held (the sweep
// hung there before).
func TestPanickingAdapterFailsItsCell(t *testing.T) {
	ids := make([]uint64, 1000)
	for i := range ids {
		ids[i] = uint64(i)
	}
	n := normalizeIDs(t, ids)
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		_, err = replayAdapter(n, "panics-locked", Capacity{Entries: 10}.Resolve(n.Summary), false, nil)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the replay of a panicking adapter did not return")
	}
	if err == nil || !strings.Contains(err.Error(), "panicked after 50 requests: injected bug") {
		t.Errorf("error %v", err)
	}
}

// A result replayed with --async says so when rendered, also from a
// saved JSON file, and one replayed normally does not.
func TestAsyncResultSaysSo(t *testing.T) {
	res := &Result{Traces: []TraceResult{{Name: "t", Rows: []Row{{Adapter: "lru", Capacity: "0.1", HitRatio: 0.5}}}}}
	for _, async := range []bool{false, true} {
		res.Async = async
		var js, md bytes.Buffer
		if err := Write(&js, res, "json"); err != nil {
			t.Fatal(err)
		}
		var back Result
		if err := json.Unmarshal(js.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		if err := Write(&md, &back, "markdown"); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(md.String(), "Replayed with --async"); got != async {
			t.Errorf("async %v: the markdown mentions --async: %v", async, got)
		}
	}
}

// TestInterruptedSweepKeepsWhatWasReplayed cancels a sweep of two traces
// once the second has started: Run returns the first trace's rows in a
// result marked Interrupted, naming the second, with the cancellation as
// its error, and the result says so when written.
func TestInterruptedSweepKeepsWhatWasReplayed(t *testing.T) {
	var ids []uint64
	for i := range 20000 {
		ids = append(ids, uint64(i*7%1500))
	}
	first, second := writeIDs(t, ids, "first.oracleGeneral"), writeIDs(t, ids, "second.oracleGeneral")
	caps, _ := ParseCapacities("0.1,0.2")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	secondName := TraceInput{Path: second, Format: trace.Oracle}.DisplayName()
	res, err := Run(ctx, Config{
		Traces:     []TraceInput{{Path: first, Format: trace.Oracle}, {Path: second, Format: trace.Oracle}},
		Capacities: caps, Adapters: []string{"lru"}, Jobs: 1,
		Progress: func(done, total int, what string) {
			if strings.HasPrefix(what, secondName+" ") {
				cancel()
			}
		},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after the cancel: err %v, want context.Canceled", err)
	}
	if res == nil || !res.Interrupted || res.InterruptedDuring != secondName || len(res.Traces) != 1 || len(res.Traces[0].Rows) == 0 {
		t.Fatalf("Run after the cancel: %+v", res)
	}
	var md bytes.Buffer
	if err := Write(&md, res, "markdown"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "⚠ Interrupted: the sweep was cancelled during "+secondName) {
		t.Errorf("the markdown does not say it was interrupted:\n%s", md.String())
	}
	// Cancelled before any trace finished: nothing to keep, only the error.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if res, err := Run(ctx2, Config{Traces: []TraceInput{{Path: first, Format: trace.Oracle}}, Capacities: caps, Adapters: []string{"lru"}}); err == nil || res != nil {
		t.Fatalf("Run cancelled before it began: %v, %+v", err, res)
	}
}

// TestSweepLeavesNoTraceFile: while the sweep replays, the directory of
// its normalized traces (Config.Dir) holds no file, so a process that
// dies mid-sweep without running its defers (SIGKILL, the OOM killer)
// leaves none behind; the replay jobs, two at a time, read the one
// unnamed file and agree with a sweep of one job.
func TestSweepLeavesNoTraceFile(t *testing.T) {
	var ids []uint64
	for i := range 20000 {
		ids = append(ids, uint64(i*7%1500))
	}
	p := writeIDs(t, ids, "ids.oracleGeneral")
	caps, _ := ParseCapacities("0.1,0.2")
	dir := t.TempDir()
	var seen []string
	sweep := func(jobs int) *Result {
		t.Helper()
		res, err := Run(context.Background(), Config{Traces: []TraceInput{{Path: p, Format: trace.Oracle}}, Capacities: caps,
			Adapters: []string{"lru", "sieve"}, Jobs: jobs, Dir: dir,
			Progress: func(done, total int, what string) {
				ents, err := os.ReadDir(dir)
				if err != nil {
					t.Error(err)
				}
				for _, e := range ents {
					seen = append(seen, fmt.Sprintf("%s after %d of %d replays", e.Name(), done, total))
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	two, one := sweep(2), sweep(1)
	if len(seen) > 0 {
		t.Errorf("the directory of the normalized traces held %v", seen)
	}
	for i, r := range two.Traces[0].Rows {
		o := one.Traces[0].Rows[i]
		if r.Adapter != o.Adapter || r.Capacity != o.Capacity || r.Hits != o.Hits || r.Requests != o.Requests || r.HitRatio != o.HitRatio {
			t.Errorf("row %d: two jobs %s %s %d/%d, one job %s %s %d/%d", i, r.Adapter, r.Capacity, r.Hits, r.Requests, o.Adapter, o.Capacity, o.Hits, o.Requests)
		}
	}
}
