package cli

import (
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/report"
)

// synthResult makes a result with map and fastcache in two phases, count
// repetitions, 2% log-normal noise, scaled by slow (per adapter, on ns/op)
// and with extra allocs/op per adapter.
func synthResult(seed uint64, count int, slow, extraAllocs map[string]float64) *report.Result {
	rng := rand.New(rand.NewPCG(seed, 42))
	res := &report.Result{Schema: report.SchemaVersion, Tool: "cachebench", Kind: report.KindRun,
		Env: report.Env{CPUModel: "test cpu", GOOS: "linux", GOARCH: "amd64"}}
	for _, phase := range []report.Phase{report.PhaseInsert, report.PhaseLookup} {
		for _, a := range []struct {
			name      string
			ns, alloc float64
		}{{"map", 250, 2}, {"fastcache", 600, 0}} {
			m := report.Measurement{Adapter: a.name, Workload: "insert-lookup", Phase: phase, Procs: 1, Keys: 1000}
			f := 1.0
			if s, ok := slow[a.name]; ok {
				f = s
			}
			for range count {
				ns := a.ns * f * math.Exp(rng.NormFloat64()*0.02)
				m.Samples = append(m.Samples, report.Sample{Ops: 1000, NsPerOp: ns, OpsPerSec: 1e9 / ns,
					AllocsPerOp: a.alloc + extraAllocs[a.name], BytesPerOp: 64,
					HitRatio: -1, HotHitRatio: -1, ColdHitRatio: -1})
			}
			res.Measurements = append(res.Measurements, m)
		}
	}
	return res
}

func writeCompareInput(t *testing.T, dir, name string, r *report.Result) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	write := report.WriteJSON
	if strings.HasSuffix(name, ".txt") {
		write = report.WriteGoBench
	}
	if err := write(f, r); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCompareExitCodes(t *testing.T) {
	dir := t.TempDir()
	old := writeCompareInput(t, dir, "old.json", synthResult(1, 10, nil, nil))
	same := writeCompareInput(t, dir, "same.json", synthResult(2, 10, nil, nil))
	sameText := writeCompareInput(t, dir, "same.txt", synthResult(3, 10, nil, nil))
	// map 25% slower or faster: the default rule normalises to fastcache.
	slower := writeCompareInput(t, dir, "slower.json", synthResult(4, 10, map[string]float64{"map": 1.25}, nil))
	faster := writeCompareInput(t, dir, "faster.txt", synthResult(5, 10, map[string]float64{"map": 0.75}, nil))
	slowerFC := writeCompareInput(t, dir, "slowerfc.json", synthResult(4, 10, map[string]float64{"fastcache": 1.25}, nil))
	alloc := writeCompareInput(t, dir, "alloc.json", synthResult(6, 10, nil, map[string]float64{"map": 1}))
	// The whole machine 40% slower: a regression in absolute terms only.
	busy := writeCompareInput(t, dir, "busy.json", synthResult(7, 10, map[string]float64{"map": 1.4, "fastcache": 1.4}, nil))
	few := writeCompareInput(t, dir, "few.json", synthResult(8, 3, nil, nil))
	other := synthResult(9, 10, nil, nil)
	for i := range other.Measurements {
		other.Measurements[i].Keys = 5000
	}
	disjoint := writeCompareInput(t, dir, "disjoint.json", other)
	garbage := filepath.Join(dir, "garbage.txt")
	if err := os.WriteFile(garbage, []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		args       []string
		code       int
		stdout     string // must appear on stdout
		stderrWant string // must appear on stderr
	}{
		{[]string{"compare", old, same}, 0, "~", ""},
		{[]string{"compare", old, sameText}, 0, "~", ""},
		{[]string{"compare", old, slower}, 1, "REGRESSION", "regressions"},
		{[]string{"compare", old, slower}, 1, "rule: defaults: times and rates normalised to fastcache", ""},
		{[]string{"compare", "--threshold", "20%", old, slower}, 1, "rule: as set on the command line", ""},
		{[]string{"compare", "--threshold", "20%", old, slowerFC}, 1, "REGRESSION", ""},
		{[]string{"compare", old, faster}, 0, "improvement", ""},
		{[]string{"compare", old, alloc}, 1, "REGRESSION", ""},
		{[]string{"compare", "--allocs-tolerance", "0.01", old, alloc}, 1, "REGRESSION", ""},
		{[]string{"compare", "--metrics", "ns/op,ops/s", old, alloc}, 0, "~", ""},
		// The default rule normalises: a machine 40% busier is no regression.
		{[]string{"compare", old, busy}, 0, "÷ fastcache", ""},
		{[]string{"compare", "--normalize", "none", old, busy}, 1, "REGRESSION", ""},
		{[]string{"compare", "--normalize", "map", old, busy}, 0, "÷ map", ""},
		{[]string{"compare", "--normalize", "map", old, slowerFC}, 1, "REGRESSION", ""},
		{[]string{"compare", "--spread-factor", "-1", old, same}, 2, "", "--spread-factor"},
		{[]string{"compare", "--format", "markdown", old, slower}, 1, "|---|", ""},
		{[]string{"compare", old, filepath.Join(dir, "missing.json")}, 2, "", "missing.json"},
		{[]string{"compare", garbage, old}, 2, "", "garbage.txt"},
		{[]string{"compare", old, disjoint}, 2, "", "nothing in common"},
		{[]string{"compare", old, few}, 2, "", "too few samples"},
		// A sample count that cannot reach the significance level is
		// refused, saying the minimum: it could only ever pass.
		{[]string{"compare", "--min-samples", "3", old, few}, 2, "", "at least 4"},
		{[]string{"compare", "--min-samples", "2", old, same}, 2, "", "at least 4"},
		{[]string{"compare", "--alpha", "0.001", old, same}, 2, "", "at least 7"},
		{[]string{"compare", "--normalize", "otter", old, same}, 2, "", "otter"},
		{[]string{"compare", old}, 2, "", "accepts 2 arg"},
		{[]string{"compare", "--threshold", "25", old, same}, 2, "", "--threshold"},
		{[]string{"compare", "--threshold", "x%", old, same}, 2, "", "--threshold"},
		{[]string{"compare", "--alpha", "1.5", old, same}, 2, "", "--alpha"},
		{[]string{"compare", "--metrics", "furlongs", old, same}, 2, "", "valid:"},
		{[]string{"compare", "--format", "xml", old, same}, 2, "", "valid: text, markdown, json"},
		{[]string{"compare", "--allocs-tolerance", "-1", old, same}, 2, "", "--allocs-tolerance"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.stderrWant) {
			t.Errorf("%v: exit %d (want %d)\nstdout (want %q):\n%s\nstderr (want %q):\n%s",
				c.args[1:], code, c.code, c.stdout, stdout, c.stderrWant, stderr)
		}
		if c.code == 2 && stdout != "" {
			t.Errorf("%v: bad input printed a table:\n%s", c.args[1:], stdout)
		}
	}
}

func TestCompareJSONOutput(t *testing.T) {
	dir := t.TempDir()
	old := writeCompareInput(t, dir, "old.json", synthResult(1, 10, nil, nil))
	slower := writeCompareInput(t, dir, "slower.txt", synthResult(4, 10, map[string]float64{"fastcache": 1.25}, nil))
	code, stdout, stderr := runCLI(t, "compare", "--format", "json", "--normalize", "none", old, slower)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		OldName     string `json:"old_name"`
		Regressions int    `json:"regressions"`
		Rows        []struct {
			Key     struct{ Adapter string } `json:"key"`
			Metric  string                   `json:"metric"`
			Verdict string                   `json:"verdict"`
		} `json:"rows"`
	}
	if err := json.NewDecoder(strings.NewReader(stdout)).Decode(&got); err != nil && err != io.EOF {
		t.Fatalf("decode: %v\n%s", err, stdout)
	}
	if got.OldName != old || got.Regressions == 0 {
		t.Fatalf("old_name %q, regressions %d", got.OldName, got.Regressions)
	}
	for _, r := range got.Rows {
		if r.Verdict == "regression" && r.Key.Adapter != "fastcache" {
			t.Errorf("regression on %s %s; only fastcache was slowed", r.Key.Adapter, r.Metric)
		}
	}
}
