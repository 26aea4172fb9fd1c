package hitratio

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	_ "github.com/cachebench/cachebench/internal/engine/adapters"
	"github.com/cachebench/cachebench/internal/fit"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

func TestParseCapacities(t *testing.T) {
	got, err := ParseCapacities("0.01, 0.5,100%,5%,250,1,64MiB,1.5KiB,1GB,1KB,1TiB")
	want := []Capacity{{Fraction: 0.01}, {Fraction: 0.5}, {Fraction: 1}, {Fraction: 0.05}, {Entries: 250}, {Entries: 1},
		{Bytes: 64 << 20}, {Bytes: 1536}, {Bytes: 1e9}, {Bytes: 1000}, {Bytes: 1 << 40}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %v, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("item %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// "1.0" would be 100% where "1" is one entry: refused, as are empty
	// list items, which --cpu refuses too.
	for _, bad := range []string{"0", "0.0", "-0.1", "1.5", "1.0", "abc", "", "-5", "0MiB", "x.5", "0.1,,0.2", "0.1,"} {
		if _, err := ParseCapacities(bad); err == nil {
			t.Errorf("ParseCapacities(%q) accepted", bad)
		}
	}
}

// TestCapacityStringRoundTrips: a capacity written back (into a result)
// reads back as the same capacity; 1.0 as a fraction would read as 1 entry.
func TestCapacityStringRoundTrips(t *testing.T) {
	for _, c := range []Capacity{{Fraction: 1}, {Fraction: 0.05}, {Entries: 1}, {Bytes: 4096}} {
		got, err := ParseCapacities(c.String())
		if err != nil || got[0] != c {
			t.Errorf("%+v → %q → %+v, %v", c, c.String(), got, err)
		}
	}
}

func TestResolveBudget(t *testing.T) {
	s := trace.Summary{Requests: 100, Distinct: 1000, DistinctBytes: 1000 * 200}
	per := 200.0 + KeyBytes + 48
	b := Capacity{Fraction: 0.1}.Resolve(s)
	if b.Entries != 100 || b.Bytes != int64(100*per) || b.Fraction != 0.1 {
		t.Errorf("fraction: %+v", b)
	}
	if b := (Capacity{Bytes: int64(50 * per)}).Resolve(s); b.Entries != 50 {
		t.Errorf("bytes: %+v", b)
	}
}

// bestHits is the exact optimum by exhaustive search over every admission
// and eviction choice: the most hits any cache of capacity entries can
// get on ids.
func bestHits(ids []uint64, capacity int) int {
	type key struct {
		i     int
		state uint64
	}
	memo := map[key]int{}
	var rec func(i int, state uint64) int
	rec = func(i int, state uint64) int {
		if i == len(ids) {
			return 0
		}
		k := key{i, state}
		if v, ok := memo[k]; ok {
			return v
		}
		bit := uint64(1) << ids[i]
		var best int
		if state&bit != 0 {
			best = 1 + rec(i+1, state)
		} else {
			best = rec(i+1, state) // bypass
			n := 0
			for s := state; s != 0; s &= s - 1 {
				n++
			}
			if n < capacity {
				best = max(best, rec(i+1, state|bit))
			} else {
				for s := state; s != 0; s &= s - 1 {
					victim := s & -s
					best = max(best, rec(i+1, state&^victim|bit))
				}
			}
		}
		memo[k] = best
		return best
	}
	return rec(0, 0)
}

// writeIDs writes ids (unit sizes) as an oracleGeneral trace file of
// that name in a directory of its own, and returns its path.
func writeIDs(t *testing.T, ids []uint64, name string) string {
	t.Helper()
	b := make([]byte, len(ids)*trace.OracleRecordSize)
	for i, id := range ids {
		trace.PutOracle(b[i*trace.OracleRecordSize:], &trace.Request{Time: uint32(i), ID: id, Size: 16, Next: trace.NoNext})
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// normalizeIDs normalizes ids (unit sizes) for replay.
func normalizeIDs(t *testing.T, ids []uint64) *trace.Normalized {
	t.Helper()
	p := writeIDs(t, ids, "ids.oracleGeneral")
	f, err := trace.Open(p, trace.Oracle)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := trace.Normalize(f, t.TempDir(), p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func TestOPTIsOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for round := 0; round < 40; round++ {
		objects := 2 + rng.IntN(5)
		ids := make([]uint64, 8+rng.IntN(10))
		for i := range ids {
			ids[i] = uint64(rng.IntN(objects))
		}
		n := normalizeIDs(t, ids)
		for capacity := 1; capacity <= 3; capacity++ {
			row, err := replayOPT(n, Budget{Entries: capacity}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := bestHits(ids, capacity); row.Hits != int64(want) {
				t.Fatalf("ids %v capacity %d: OPT %d hits, exhaustive optimum %d", ids, capacity, row.Hits, want)
			}
		}
	}
}

func TestLoopDefeatsLRUNotOPT(t *testing.T) {
	var ids []uint64
	for i := 0; i < 1000; i++ {
		ids = append(ids, uint64(i%100))
	}
	n := normalizeIDs(t, ids)
	b := Capacity{Entries: 50}.Resolve(n.Summary)
	lru, err := replayAdapter(n, "lru", b, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := replayOPT(n, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A 100-key loop through 50 LRU slots always evicts the key needed
	// next; OPT keeps 49 keys and hits them on every later pass.
	if lru.Hits != 0 || opt.Hits < 9*49 {
		t.Errorf("lru %d hits, OPT %d hits", lru.Hits, opt.Hits)
	}
	if lru.Held != 50 || len(lru.Flags) != 0 {
		t.Errorf("lru held %d, flags %v", lru.Held, lru.Flags)
	}
}

func TestRunSweep(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "z.oracleGeneral.zst")
	c := trace.GenConfig{Kind: "zipf", Requests: 20000, Keys: 2000, Alpha: 0.9, Seed: 1, SizeMin: 32, SizeMax: 512}
	if err := trace.Generate(context.Background(), c, p); err != nil {
		t.Fatal(err)
	}
	caps, _ := ParseCapacities("0.05,0.2")
	res, err := Run(context.Background(), Config{Traces: []TraceInput{{Path: p}}, Capacities: caps,
		Adapters: []string{"lru", "arc", "theine", "syncmap"}, Jobs: 2, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Traces[0]
	if len(tr.Rows) != 10 || !tr.Sized || tr.Requests != 20000 || tr.ReaderPerSec <= 0 {
		t.Fatalf("trace result %+v", tr)
	}
	opt := map[string]float64{}
	for _, r := range tr.Rows {
		if r.Adapter == OPTName {
			opt[r.Capacity] = r.HitRatio
		}
	}
	for _, r := range tr.Rows {
		switch {
		case r.Adapter == "syncmap":
			// syncmap is unbounded: it counts its entries (Len), so it is
			// flagged over its budget, and beating OPT shows it too.
			if len(r.Flags) != 2 || r.Flags[0].Kind != FlagOverBudget || r.Flags[1].Kind != FlagAboveOPT || r.HitRatio < tr.Infinite-1e-9 {
				t.Errorf("unbounded syncmap: hit ratio %v (unbounded %v), flags %v", r.HitRatio, tr.Infinite, r.Flags)
			}
		case r.HitRatio > opt[r.Capacity]+1e-9:
			t.Errorf("%s at %s beats OPT: %v > %v", r.Adapter, r.Capacity, r.HitRatio, opt[r.Capacity])
		case r.Adapter != OPTName && (r.HitRatio <= 0.1 || r.Wrong != 0):
			t.Errorf("%s at %s: hit ratio %v, wrong %d", r.Adapter, r.Capacity, r.HitRatio, r.Wrong)
		}
	}
	if d := tr.ChartData(); len(d.Curves) != 5 || d.Curves[0].Name != OPTName || !d.Curves[0].Reference || len(d.Curves[1].Capacity) != 2 {
		t.Errorf("chart data %+v", d)
	}
	// Repeated: every adapter cell lists its replays, OPT and the
	// reference policies (lru among them) replay once; arc replays
	// identically.
	res, err = Run(context.Background(), Config{Traces: []TraceInput{{Path: p}}, Capacities: caps,
		Adapters: []string{"arc", "lru", "sieve"}, Jobs: 2, Dir: dir, Repeat: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Repeat != 3 || len(res.Traces[0].Rows) != 8 {
		t.Fatalf("repeated sweep: repeat %d, %d rows", res.Repeat, len(res.Traces[0].Rows))
	}
	for _, r := range res.Traces[0].Rows {
		switch r.Adapter {
		case "arc":
			if len(r.Runs) != 3 || r.Runs[0] != r.HitRatio || r.Runs[1] != r.HitRatio || r.Runs[2] != r.HitRatio {
				t.Errorf("arc at %s: hit ratio %v, runs %v", r.Capacity, r.HitRatio, r.Runs)
			}
		default:
			if r.Runs != nil {
				t.Errorf("%s at %s replayed %d times", r.Adapter, r.Capacity, len(r.Runs))
			}
		}
	}
	bad := filepath.Join(dir, "empty.txt")
	os.WriteFile(bad, nil, 0o644)
	_, err = Run(context.Background(), Config{Traces: []TraceInput{{Path: bad}}, Capacities: caps, Adapters: []string{"lru"}})
	if !errors.Is(err, ErrInput) || !errors.Is(err, trace.ErrEmpty) {
		t.Errorf("empty trace: %v", err)
	}
}

// BenchmarkReaderNull measures the replay loop over the null cache: the
// oracleGeneral reader and the get-or-set loop alone, on one goroutine.
// The lab's target is at least 5M requests/s (metric req/s).
func BenchmarkReaderNull(b *testing.B) {
	for _, name := range []string{"plain.oracleGeneral", "zstd.oracleGeneral.zst", "xz.oracleGeneral.xz"} {
		b.Run(name, func(b *testing.B) {
			p := filepath.Join(b.TempDir(), name)
			const requests = 2_000_000
			c := trace.GenConfig{Kind: "zipf", Requests: requests, Keys: 100_000, Alpha: 0.9, Seed: 1, SizeMin: 64, SizeMax: 4096}
			if err := trace.Generate(context.Background(), c, p); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				f, err := trace.Open(p, trace.Oracle)
				if err != nil {
					b.Fatal(err)
				}
				if n, _, err := ReaderSpeed(f, 4096); err != nil || n != requests {
					b.Fatalf("%d requests, %v", n, err)
				}
				f.Close()
			}
			b.ReportMetric(float64(requests)*float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// A cell replayed several times reports the replay with the median object
// hit ratio (the lower middle one of an even count), every replay's in
// Runs, and the first error if any replay failed.
func TestMedianRun(t *testing.T) {
	rows := func(hrs ...float64) []Row {
		var out []Row
		for i, h := range hrs {
			out = append(out, Row{HitRatio: h, Hits: int64(i)})
		}
		return out
	}
	for _, tc := range []struct {
		hrs  []float64
		want int64 // Hits, the index of the replay reported
	}{
		{[]float64{0.3, 0.1, 0.2}, 2},
		{[]float64{0.4, 0.1, 0.3, 0.2}, 3},
		{[]float64{0.2, 0.2, 0.1}, 0},
		{[]float64{0.5}, 0},
	} {
		got, err := medianRun(rows(tc.hrs...), make([]error, len(tc.hrs)))
		if err != nil || got.Hits != tc.want {
			t.Errorf("%v: replay %d reported (err %v), want %d", tc.hrs, got.Hits, err, tc.want)
		}
		if len(tc.hrs) > 1 && !slices.Equal(got.Runs, tc.hrs) {
			t.Errorf("%v: runs %v", tc.hrs, got.Runs)
		}
		if len(tc.hrs) == 1 && got.Runs != nil {
			t.Errorf("one replay: runs %v", got.Runs)
		}
	}
	boom := errors.New("boom")
	if _, err := medianRun(rows(0.1, 0.2), []error{nil, boom}); err != boom {
		t.Errorf("a failed replay: err %v", err)
	}
}

// TestCapacityBeyondMemoryRefused: a capacity whose byte budget exceeds
// the memory there is is refused with a *fit.TooBigError (exit 2) before
// any cache is made. fastcache panicked in its constructor above 1 TiB
// (--capacity 1e18B killed the process), and a cache that allocates its
// budget up front would have run out of memory.
func TestCapacityBeyondMemoryRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "z.oracleGeneral")
	c := trace.GenConfig{Kind: "zipf", Requests: 2000, Keys: 200, Alpha: 0.9, Seed: 1, SizeMin: 32, SizeMax: 512}
	if err := trace.Generate(context.Background(), c, p); err != nil {
		t.Fatal(err)
	}
	for _, capacity := range []string{"1e18B", "2147483647"} {
		caps, err := ParseCapacities(capacity)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(context.Background(), Config{Traces: []TraceInput{{Path: p}}, Capacities: caps,
			Adapters: []string{"fastcache", "lru"}, Jobs: 1, Dir: dir})
		var tooBig *fit.TooBigError
		if !errors.As(err, &tooBig) || tooBig.Resource != "memory" {
			t.Errorf("--capacity %s: %v, want a *fit.TooBigError for memory", capacity, err)
		}
	}
}
