package report

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
)

// ReadGoBench converts a gobench file back into a Result, so that
// commands accept either format. name is the file name used in error
// messages, which carry file:line. Benchmarks not written by cachebench
// are read too: the phase is the base name, the adapter the impl= part
// (or the positional parts), the workload the workload= part (or the
// other key=value parts).
func ReadGoBench(r io.Reader, name string) (*Result, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("report: read %s: %w", name, err)
	}
	return readGoBench(context.Background(), data, name)
}

// checkEvery is how many benchmark lines the gobench reader reads between
// two looks at its context.
const checkEvery = 4096

// readGoBench is ReadGoBench of data, returning ctx's error once ctx is
// cancelled.
func readGoBench(ctx context.Context, data []byte, name string) (*Result, error) {
	res := &Result{Schema: SchemaVersion, Tool: "cachebench", Kind: KindRun, Config: map[string]string{}}
	if err := readGoBenchComments(data, name, res); err != nil {
		return nil, err
	}
	type mkey struct {
		phase             Phase
		adapter, workload string
		keys, procs       int
		rate              float64
		arrivals          string
	}
	index := map[mkey]int{}
	gcReps := map[string]int{}
	lostEntries := map[int]int64{}
	overBudget := map[int]float64{}
	found := false
	br := benchfmt.NewReader(bytes.NewReader(data), name)
	for n := 1; br.Scan(); n++ {
		if n%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, fmt.Errorf("report: %w", rec)
		case *benchfmt.Result:
			found = true
			if res.Env.CPUModel == "" {
				res.Env.CPUModel = rec.GetConfig("cpu")
				res.Env.GOOS = rec.GetConfig("goos")
				res.Env.GOARCH = rec.GetConfig("goarch")
			}
			base, parts := rec.Name.Parts()
			if string(base) == gcPauseBase {
				p, err := readGCPauseLine(rec, parts)
				if err != nil {
					return nil, err
				}
				p.Repetition = gcReps[p.Adapter]
				gcReps[p.Adapter]++
				res.Kind = KindGCPause
				res.GCPause = append(res.GCPause, p)
				continue
			}
			m, s, lost, err := readBenchLine(rec, string(base), parts)
			if err != nil {
				return nil, err
			}
			held := -1.0
			for _, v := range rec.Values {
				if v.Unit == unitHeldOfBudget {
					held = v.Value
				}
			}
			k := mkey{m.Phase, m.Adapter, m.Workload, m.Keys, m.Procs, m.Rate, m.Arrivals}
			i, ok := index[k]
			if !ok {
				i = len(res.Measurements)
				index[k] = i
				res.Measurements = append(res.Measurements, m)
			}
			res.Measurements[i].Samples = append(res.Measurements[i].Samples, s)
			if held > 1+OverBudgetTolerance {
				overBudget[i] = max(overBudget[i], held)
			}
			if lost >= 0 {
				lostEntries[i] += lost
			}
		}
	}
	if err := br.Err(); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if !found {
		return nil, fmt.Errorf("report: %s: no benchmark results", name)
	}
	for i := range res.Measurements {
		m := &res.Measurements[i]
		t := m.Totals()
		if t.Wrong > 0 {
			m.Flags = append(m.Flags, CountedFlag(FlagWrongValues, t.Wrong))
		}
		if t.Errors > 0 {
			m.Flags = append(m.Flags, CountedFlag(FlagErrors, t.Errors))
		}
		if n, ok := lostEntries[i]; ok && n > 0 {
			m.Flags = append(m.Flags, CountedFlag(FlagLostEntries, n))
		}
		if r, ok := overBudget[i]; ok {
			m.Flags = append(m.Flags, CountedFlag(FlagOverBudget, int64(math.Round(100*r))))
		}
		if f, ok := SaturatedFlag(m); ok {
			m.Flags = append(m.Flags, f)
		}
	}
	return res, nil
}

// readGoBenchComments reads the "# cachebench" comment lines.
func readGoBenchComments(data []byte, name string, res *Result) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	line := 0
	for sc.Scan() {
		line++
		rest, ok := strings.CutPrefix(sc.Text(), "# cachebench ")
		if !ok {
			continue
		}
		what, rest, _ := strings.Cut(rest, " ")
		if what == "failure" {
			var f Failure
			if err := json.Unmarshal([]byte(rest), &f); err != nil {
				return fmt.Errorf("report: %s:%d: failure line: %w", name, line, err)
			}
			res.Errors = append(res.Errors, f)
			continue
		}
		if what == "error" || what == "skipped" {
			e, err := strconv.Unquote(strings.TrimSpace(rest))
			if err != nil {
				return fmt.Errorf("report: %s:%d: %s line: %w", name, line, what, err)
			}
			if what == "error" {
				res.Errors = append(res.Errors, legacyFailureText(e))
			} else {
				res.Skipped = append(res.Skipped, e)
			}
			continue
		}
		kvs, err := parseQuotedPairs(rest)
		if err != nil {
			return fmt.Errorf("report: %s:%d: %w", name, line, err)
		}
		switch what {
		case "config":
			for _, kv := range kvs {
				res.Config[kv[0]] = kv[1]
			}
		case "env":
			if err := applyEnvPairs(res, kvs); err != nil {
				return fmt.Errorf("report: %s:%d: %w", name, line, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("report: read %s:%d: %w", name, line, err)
	}
	return nil
}

// parseQuotedPairs parses ` key="value" key2="value2"`.
func parseQuotedPairs(s string) ([][2]string, error) {
	var out [][2]string
	for {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return out, nil
		}
		key, rest, ok := strings.Cut(s, "=")
		if !ok || key == "" || strings.Contains(key, " ") {
			return nil, fmt.Errorf("expected key=\"value\" at %q", s)
		}
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil, fmt.Errorf("value of %s: %w", key, err)
		}
		v, _ := strconv.Unquote(q)
		out = append(out, [2]string{key, v})
		s = rest[len(q):]
	}
}

func applyEnvPairs(res *Result, kvs [][2]string) error {
	e := &res.Env
	for _, kv := range kvs {
		k, v := kv[0], kv[1]
		var err error
		switch k {
		case "kind":
			if v != KindRun && v != KindGCPause {
				return fmt.Errorf("env kind: unknown kind %q (want %q or %q)", v, KindRun, KindGCPause)
			}
			res.Kind = v
		case "go":
			e.GoVersion = v
		case "cores":
			e.LogicalCores, err = strconv.Atoi(v)
		case "gomaxprocs":
			e.GOMAXPROCS, err = strconv.Atoi(v)
		case "kernel":
			e.Kernel = v
		case "gogc":
			e.GOGC = v
		case "gomemlimit":
			e.GOMEMLIMIT = v
		case "revision":
			e.GitRevision = v
		case "timer_cost_ns":
			e.TimerCostNs, err = strconv.ParseFloat(v, 64)
		case "thp":
			e.THPMode = v
		case "dependent_load_ns":
			e.DependentLoadNs, err = strconv.ParseFloat(v, 64)
		case "started":
			res.Started, err = time.Parse(time.RFC3339Nano, v)
		case "duration_s":
			var s float64
			if s, err = strconv.ParseFloat(v, 64); err == nil {
				res.Duration = Duration(s * float64(time.Second))
			}
		case "interrupted":
			res.Interrupted = v == "true"
		}
		if err != nil {
			return fmt.Errorf("env %s: %w", k, err)
		}
	}
	return nil
}

// nameParts splits the configuration parts of a benchmark name into
// key=value pairs (in order), positional parts and GOMAXPROCS (1 when the
// name has no -N suffix, as go test writes it at GOMAXPROCS 1).
func nameParts(parts [][]byte) (kv [][2]string, positional []string, procs int, err error) {
	procs = 1
	for _, p := range parts {
		s := string(p)
		switch {
		case strings.HasPrefix(s, "-"):
			if procs, err = strconv.Atoi(s[1:]); err != nil {
				return nil, nil, 0, fmt.Errorf("GOMAXPROCS suffix %q: %w", s, err)
			}
		case strings.Contains(s, "="):
			k, v, _ := strings.Cut(strings.TrimPrefix(s, "/"), "=")
			kv = append(kv, [2]string{k, strings.ReplaceAll(v, ":", "/")})
		default:
			positional = append(positional, strings.TrimPrefix(s, "/"))
		}
	}
	return kv, positional, procs, nil
}

func posError(rec *benchfmt.Result, err error) error {
	file, line := rec.Pos()
	return fmt.Errorf("report: %s:%d: %w", file, line, err)
}

// readBenchLine converts one benchmark line into a Measurement (without
// samples) and its Sample. lost is the lost-entries count, or -1 when
// the line has none.
func readBenchLine(rec *benchfmt.Result, base string, parts [][]byte) (m Measurement, s Sample, lost int64, err error) {
	kv, positional, procs, err := nameParts(parts)
	if err != nil {
		return m, s, 0, posError(rec, err)
	}
	m.Phase, m.Procs = PhaseOfBench(base), procs
	if len(rec.Values) == 0 {
		// benchfmt stops at a value it cannot parse ("Inf", "+Inf") and
		// keeps the line: a sample of no figures would read as 0 ns/op.
		return m, s, 0, posError(rec, errors.New("no figure that parses as a number after the iteration count"))
	}
	for _, v := range rec.Values {
		// An infinity is kept in the unit as written (benchfmt does not
		// tidy it), where the switch below would not see it.
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			unit := v.Unit
			if v.OrigUnit != "" {
				unit = v.OrigUnit // as written: ns/op, not the tidied sec/op
			}
			return m, s, 0, posError(rec, fmt.Errorf("%s: %v is not a finite number", unit, v.Value))
		}
	}
	var other []string
	for _, p := range kv {
		switch p[0] {
		case "impl":
			m.Adapter = p[1]
		case "workload":
			m.Workload = p[1]
		case "keys":
			if m.Keys, err = strconv.Atoi(p[1]); err != nil {
				return m, s, 0, posError(rec, fmt.Errorf("keys=%q: %w", p[1], err))
			}
		case "rate":
			if m.Rate, err = strconv.ParseFloat(p[1], 64); err != nil || !(m.Rate > 0) || math.IsInf(m.Rate, 0) {
				return m, s, 0, posError(rec, fmt.Errorf("rate=%q: not a positive rate", p[1]))
			}
			m.Arrivals = cmp.Or(m.Arrivals, ArrivalsUniform)
		case "arrivals":
			m.Arrivals = p[1]
		default:
			other = append(other, p[0]+"="+p[1])
		}
	}
	if m.Adapter == "" {
		m.Adapter = strings.Join(positional, "/")
		if m.Adapter == "" {
			m.Adapter = base
		}
	}
	if m.Workload == "" {
		m.Workload = strings.Join(other, "/")
	}
	s = Sample{Ops: int64(rec.Iters), HitRatio: -1, HotHitRatio: -1, ColdHitRatio: -1}
	lost = -1
	open := func() *OpenLoop {
		if s.Open == nil {
			s.Open = &OpenLoop{}
		}
		return s.Open
	}
	for _, v := range rec.Values {
		// Values arrive tidied: ns/op as sec/op, p99-ns as p99-sec.
		switch v.Unit {
		case "sec/op":
			s.NsPerOp = v.Value * 1e9
		case string(MetricOpsPerSec):
			s.OpsPerSec = v.Value
		case string(MetricAllocsPerOp):
			s.AllocsPerOp = v.Value
		case string(MetricBytesPerOp):
			s.BytesPerOp = v.Value
		case string(MetricHitRatio):
			s.HitRatio = v.Value
		case string(MetricHotHitRatio):
			s.HotHitRatio = v.Value
		case string(MetricColdHitRatio):
			s.ColdHitRatio = v.Value
		case "p50-sec":
			s.Latency.P50 = v.Value * 1e9
		case "p99-sec":
			s.Latency.P99 = v.Value * 1e9
		case "p99.9-sec":
			s.Latency.P999 = v.Value * 1e9
		case string(MetricWrong):
			s.Wrong = int64(math.Round(v.Value))
		case string(MetricErrors):
			s.Errors = int64(math.Round(v.Value))
		case unitLostEntries:
			lost = int64(math.Round(v.Value))
		case unitAchieved:
			open().Achieved = v.Value
		case "uncorrected-p99-sec": // tidied from unitUncorrectedP99
			open().Uncorrected.P99 = math.Round(v.Value * 1e9)
		case "uncorrected-p99.9-sec":
			open().Uncorrected.P999 = math.Round(v.Value * 1e9)
		case unitMaxBacklog:
			open().MaxBacklog = int64(math.Round(v.Value))
		}
	}
	if s.Open != nil {
		s.Open.Offered = m.Rate
	}
	if s.NsPerOp > 0 && s.OpsPerSec == 0 {
		// Plain go test output has no ops/s; derive it (one worker).
		s.OpsPerSec = 1e9 / s.NsPerOp
	}
	if s.Latency.P50 > 0 || s.Latency.P99 > 0 || s.Latency.P999 > 0 {
		// The sample count is not carried; mark the percentiles present.
		s.Latency.Samples = 1
	}
	if s.HitRatio >= 0 && s.Ops > 0 {
		// Counts consistent with the ratio, so that ratios computed
		// from totals match the file.
		s.Hits = int64(math.Round(s.HitRatio * float64(s.Ops)))
		s.Misses = s.Ops - s.Hits
	}
	if lost >= 0 {
		s.Misses = lost
	}
	if field, msg := CheckSample(s); field != "" {
		return m, s, 0, posError(rec, fmt.Errorf("%s: %s", field, msg))
	}
	return m, s, lost, nil
}

func readGCPauseLine(rec *benchfmt.Result, parts [][]byte) (GCPause, error) {
	var p GCPause
	kv, _, _, err := nameParts(parts)
	if err != nil {
		return p, posError(rec, err)
	}
	for _, x := range kv {
		var err error
		switch x[0] {
		case "impl":
			p.Adapter = x[1]
		case "entries":
			p.Entries, err = strconv.Atoi(x[1])
		case "value-size":
			p.ValueSize, err = strconv.Atoi(x[1])
		case "gogc":
			p.GOGC, err = strconv.Atoi(x[1])
		}
		if err != nil {
			return p, posError(rec, fmt.Errorf("%s=%q: %w", x[0], x[1], err))
		}
	}
	u := func(f float64) uint64 { return uint64(math.Round(f)) }
	i := func(f float64) int64 { return int64(math.Round(f)) }
	for _, v := range rec.Values {
		switch v.Unit {
		case unitFill:
			p.FillSeconds = v.Value
		case unitForcedGC:
			p.ForcedGCSeconds = v.Value
		case unitFillGCCPU:
			p.FillGCCPUSeconds = v.Value
		case unitForcedGCCPU:
			p.ForcedGCCPUSecond = v.Value
		case unitPauses:
			p.PauseCount = u(v.Value)
		case unitPauseMax:
			p.PauseMaxSeconds = v.Value
		case unitPauseTotal:
			p.PauseTotalSeconds = v.Value
		case unitHeapObjects:
			p.HeapObjects = u(v.Value)
		case unitHeapInUse:
			p.HeapInUseBytes = u(v.Value)
		case unitPeakRSS:
			p.PeakRSSBytes = u(v.Value)
		case unitRSSPerEntry:
			p.RSSBytesPerEntry = v.Value
		case unitGCGetP99:
			p.GetDuringGC.P99 = v.Value * 1e9
		case unitGCGetP999:
			p.GetDuringGC.P999 = v.Value * 1e9
		case unitVerified:
			p.Verified = i(v.Value)
		case unitMissing:
			p.Missing = i(v.Value)
		case string(MetricWrong):
			p.Wrong = i(v.Value)
		}
	}
	for _, v := range rec.Values {
		if msg := checkFigure(v.Value, 0); msg != "" {
			return p, posError(rec, fmt.Errorf("%s: %s", v.Unit, msg))
		}
	}
	return p, nil
}
