package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/perf/benchfmt"

	"github.com/cachebench/cachebench/internal/engine"
)

// The gobench format is the `go test -bench` text format, so benchstat
// reads cachebench results directly:
//
//	benchstat -col /impl results.txt
//
// Each sample is one benchmark line named
//
//	Benchmark<Phase>/impl=<adapter>/workload=<workload>/keys=<n>-<procs>
//
// where Phase is the phase in CamelCase (Insert, Lookup, GetOrSet, ...),
// a "/" inside a workload or adapter name is written ":" (mixed:zipf) so
// that it does not split the name, and -<procs> is the phase's
// GOMAXPROCS, always written. The iteration count is the sample's
// operation count. Units are the Metric names: ns/op (which benchstat
// shows as sec/op), ops/s, allocs/op, B/op, hit ratios, latency
// percentiles in ns, and the counts that flag a measurement. "Unit" lines
// say which direction is better for the units benchstat does not know.
//
// The file configuration holds goos, goarch, pkg and cpu, as go test
// writes them; benchstat splits tables by file configuration, so nothing
// that differs between two comparable runs (date, revision) goes there.
// Those go to "# cachebench env" and "# cachebench config" comment lines,
// which benchstat ignores and ReadGoBench reads back.
//
// Not carried: measurement notes, flags other than wrong values, errors
// and lost entries, the max latency, the latency sample count, exact hit
// and miss counts (ReadGoBench rebuilds counts consistent with the hit
// ratio), and gc-pause entries that failed.

// gobenchPkg is the pkg: line, naming the tool that measured.
const gobenchPkg = "github.com/cachebench/cachebench"

// gcPauseBase is the benchmark name of gc-pause lines.
const gcPauseBase = "GCPause"

// WriteGoBench writes r in the gobench format, one benchmark line per
// sample (run results) or per child process (gc-pause results).
func WriteGoBench(w io.Writer, r *Result) error {
	if r == nil {
		return errors.New("report: write gobench: nil result")
	}
	bw := bufio.NewWriter(w)
	writeGoBenchComments(bw, r)
	var lines []*benchfmt.Result
	cfg := []benchfmt.Config{
		{Key: "goos", Value: []byte(r.Env.GOOS), File: true},
		{Key: "goarch", Value: []byte(r.Env.GOARCH), File: true},
		{Key: "pkg", Value: []byte(gobenchPkg), File: true},
		{Key: "cpu", Value: []byte(r.Env.CPUModel), File: true},
	}
	// An empty value would delete the key when read back.
	for i := 0; i < len(cfg); i++ {
		if len(cfg[i].Value) == 0 {
			cfg = append(cfg[:i], cfg[i+1:]...)
			i--
		}
	}
	// The floor probe's lines come last: benchstat -col /impl takes the
	// first implementation it reads as the base column, and against the
	// probe's few nanoseconds every adapter read as +10000%.
	for _, probeLast := range []bool{false, true} {
		for _, m := range r.Measurements {
			if (m.Adapter == engine.ProbeName) == probeLast {
				lines = append(lines, measurementLines(cfg, m)...)
			}
		}
	}
	for _, p := range r.GCPause {
		if l := gcPauseLine(cfg, p); l != nil {
			lines = append(lines, l)
		}
	}
	bfw := benchfmt.NewWriter(bw)
	for _, unit := range usedUnits(lines) {
		u, ok := UnitOf(unit)
		if !ok || u.BenchstatKnows {
			continue
		}
		if err := bfw.Write(&benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: unit, Key: "better"}, OrigUnit: unit, Value: u.Better.String()}); err != nil {
			return fmt.Errorf("report: write gobench: %w", err)
		}
		if u.Exact {
			if err := bfw.Write(&benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: unit, Key: "assume"}, OrigUnit: unit, Value: "exact"}); err != nil {
				return fmt.Errorf("report: write gobench: %w", err)
			}
		}
	}
	for _, l := range lines {
		if err := bfw.Write(l); err != nil {
			return fmt.Errorf("report: write gobench: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: write gobench: %w", err)
	}
	return nil
}

func usedUnits(lines []*benchfmt.Result) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lines {
		for _, v := range l.Values {
			if !seen[v.Unit] {
				seen[v.Unit] = true
				out = append(out, v.Unit)
			}
		}
	}
	sort.Strings(out)
	return out
}

// writeGoBenchComments writes what benchstat must not see as file
// configuration but a reader of the file wants: the environment and the
// run's configuration, as quoted key="value" pairs.
func writeGoBenchComments(w *bufio.Writer, r *Result) {
	e := r.Env
	env := [][2]string{
		{"kind", r.Kind},
		{"go", e.GoVersion},
		{"cores", itoaNonZero(e.LogicalCores)},
		{"gomaxprocs", itoaNonZero(e.GOMAXPROCS)},
		{"kernel", e.Kernel},
		{"gogc", e.GOGC},
		{"gomemlimit", e.GOMEMLIMIT},
		{"revision", e.GitRevision},
	}
	if e.TimerCostNs != 0 {
		env = append(env, [2]string{"timer_cost_ns", strconv.FormatFloat(e.TimerCostNs, 'g', -1, 64)})
	}
	if e.THPMode != "" {
		env = append(env, [2]string{"thp", e.THPMode})
	}
	if e.DependentLoadNs != 0 {
		env = append(env, [2]string{"dependent_load_ns", strconv.FormatFloat(e.DependentLoadNs, 'g', -1, 64)})
	}
	if !r.Started.IsZero() {
		env = append(env, [2]string{"started", r.Started.Format(time.RFC3339Nano)})
	}
	if r.Duration != 0 {
		env = append(env, [2]string{"duration_s", strconv.FormatFloat(time.Duration(r.Duration).Seconds(), 'g', -1, 64)})
	}
	if r.Interrupted {
		env = append(env, [2]string{"interrupted", "true"})
	}
	w.WriteString("# cachebench env")
	for _, kv := range env {
		if kv[1] != "" {
			fmt.Fprintf(w, " %s=%s", kv[0], strconv.Quote(kv[1]))
		}
	}
	w.WriteString("\n")
	if len(r.Config) > 0 {
		keys := make([]string, 0, len(r.Config))
		for k := range r.Config {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w.WriteString("# cachebench config")
		for _, k := range keys {
			fmt.Fprintf(w, " %s=%s", strings.ReplaceAll(k, " ", "_"), strconv.Quote(r.Config[k]))
		}
		w.WriteString("\n")
	}
	for _, e := range r.Errors {
		// JSON keeps the failure's code; readers also accept the quoted
		// "error" lines of files written before failures had codes.
		b, _ := json.Marshal(e) // strings and ints only: cannot fail
		fmt.Fprintf(w, "# cachebench failure %s\n", b)
	}
	for _, e := range r.Skipped {
		fmt.Fprintf(w, "# cachebench skipped %s\n", strconv.Quote(e))
	}
	w.WriteString("\n")
}

func itoaNonZero(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// nameSafe makes s usable as one name part: "/" would start a new part
// and whitespace would end the name.
func nameSafe(s string) string {
	s = strings.ReplaceAll(s, "/", ":")
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, s)
}

func measurementLines(cfg []benchfmt.Config, m Measurement) []*benchfmt.Result {
	name := fmt.Sprintf("%s/impl=%s/workload=%s/keys=%d",
		m.Phase.BenchName(), nameSafe(m.Adapter), nameSafe(m.Workload), m.Keys)
	if m.Rate > 0 {
		// Each offered rate is a benchmark of its own, never pooled
		// with another rate's samples.
		name += "/rate=" + strconv.FormatFloat(m.Rate, 'f', -1, 64)
		if m.Arrivals != "" && m.Arrivals != ArrivalsUniform {
			name += "/arrivals=" + m.Arrivals
		}
	}
	name += "-" + strconv.Itoa(max(m.Procs, 1))
	_, saturated := SaturatedFlag(&m)
	t := m.Totals()
	_, lost := m.Flag(FlagLostEntries)
	var out []*benchfmt.Result
	for _, s := range m.Samples {
		vals := []benchfmt.Value{
			{Value: s.NsPerOp, Unit: string(MetricNsPerOp)},
			{Value: s.OpsPerSec, Unit: string(MetricOpsPerSec)},
			{Value: s.AllocsPerOp, Unit: string(MetricAllocsPerOp)},
			{Value: s.BytesPerOp, Unit: string(MetricBytesPerOp)},
		}
		for _, metric := range []Metric{MetricHitRatio, MetricHotHitRatio, MetricColdHitRatio, MetricP50, MetricP99, MetricP999} {
			if v, ok := s.Value(metric); ok {
				vals = append(vals, benchfmt.Value{Value: v, Unit: string(metric)})
			}
		}
		// Fault counts go on every sample of a faulty measurement, so
		// that benchstat sees them in every repetition.
		if t.Wrong > 0 {
			vals = append(vals, benchfmt.Value{Value: float64(s.Wrong), Unit: string(MetricWrong)})
		}
		if t.Errors > 0 {
			vals = append(vals, benchfmt.Value{Value: float64(s.Errors), Unit: string(MetricErrors)})
		}
		if lost {
			vals = append(vals, benchfmt.Value{Value: float64(s.Misses), Unit: unitLostEntries})
		}
		if s.Held != nil && s.Held.Basis != "" {
			vals = append(vals, benchfmt.Value{Value: s.Held.Ratio(), Unit: unitHeldOfBudget})
		}
		if o := s.Open; o != nil {
			vals = append(vals,
				benchfmt.Value{Value: o.Achieved, Unit: unitAchieved},
				benchfmt.Value{Value: o.Uncorrected.P99, Unit: unitUncorrectedP99},
				benchfmt.Value{Value: o.Uncorrected.P999, Unit: unitUncorrectedP999},
				benchfmt.Value{Value: float64(o.MaxBacklog), Unit: unitMaxBacklog})
			// Like the fault counts, on every sample of a saturated
			// measurement: 1 for a saturated repetition, else 0.
			if saturated {
				v := 0.0
				if o.Saturated() {
					v = 1
				}
				vals = append(vals, benchfmt.Value{Value: v, Unit: unitSaturated})
			}
		}
		out = append(out, &benchfmt.Result{
			Config: cfg,
			Name:   benchfmt.Name(name),
			Iters:  int(s.Ops),
			Values: vals,
		})
	}
	return out
}

func gcPauseLine(cfg []benchfmt.Config, p GCPause) *benchfmt.Result {
	if p.Error != "" {
		return nil
	}
	name := fmt.Sprintf("%s/impl=%s/entries=%d/value-size=%d/gogc=%d", gcPauseBase, nameSafe(p.Adapter), p.Entries, p.ValueSize, p.GOGC)
	vals := []benchfmt.Value{
		{Value: p.FillSeconds, Unit: unitFill},
		{Value: p.ForcedGCSeconds, Unit: unitForcedGC},
		{Value: p.FillGCCPUSeconds, Unit: unitFillGCCPU},
		{Value: p.ForcedGCCPUSecond, Unit: unitForcedGCCPU},
		{Value: float64(p.PauseCount), Unit: unitPauses},
		{Value: p.PauseMaxSeconds, Unit: unitPauseMax},
		{Value: p.PauseTotalSeconds, Unit: unitPauseTotal},
		{Value: float64(p.HeapObjects), Unit: unitHeapObjects},
		{Value: float64(p.HeapInUseBytes), Unit: unitHeapInUse},
		{Value: float64(p.PeakRSSBytes), Unit: unitPeakRSS},
		{Value: p.RSSBytesPerEntry, Unit: unitRSSPerEntry},
		{Value: p.GetDuringGC.P99 / 1e9, Unit: unitGCGetP99},
		{Value: p.GetDuringGC.P999 / 1e9, Unit: unitGCGetP999},
		{Value: float64(p.Verified), Unit: unitVerified},
		{Value: float64(p.Missing), Unit: unitMissing},
		{Value: float64(p.Wrong), Unit: string(MetricWrong)},
	}
	return &benchfmt.Result{Config: cfg, Name: benchfmt.Name(name), Iters: 1, Values: vals}
}
