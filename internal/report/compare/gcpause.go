package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/cachebench/cachebench/internal/report"
)

// Metrics of gc-pause results. What an adapter's entries hold on the heap
// is deterministic for a given binary and configuration, so it is
// compared exactly (within a small tolerance, see below); the cost of a
// collection is a time and gets the U test like every time.
const (
	MetricHeapObjectsPerEntry = report.MetricHeapObjectsPerEntry
	MetricHeapBytesPerEntry   = report.MetricHeapBytesPerEntry
	MetricForcedGCMs          = report.MetricForcedGCMs
	MetricForcedGCCPUMs       = report.MetricForcedGCCPUMs
)

// Tolerances of the exact gc-pause metrics: per entry, or in all for the
// whole cache, whichever is larger. The runtime's own objects (timers,
// goroutines, the result's buffers) and page-granular heap spans move the
// figures by a few objects and pages whatever the entry count; a change in
// what an entry holds moves them by at least one object or several bytes
// per entry.
const (
	HeapObjectsTolerance = 0.01     // objects per entry
	HeapObjectsSlack     = 64       // objects in all
	HeapBytesTolerance   = 1.0      // bytes per entry
	HeapBytesSlack       = 64 << 10 // bytes in all
)

// rowSpec is spec with the tolerance of an exact metric widened to its
// slack over entries.
func rowSpec(spec MetricSpec, entries int) MetricSpec {
	n := float64(max(entries, 1))
	switch spec.Metric {
	case MetricHeapObjectsPerEntry:
		spec.Threshold = math.Max(spec.Threshold, HeapObjectsSlack/n)
	case MetricHeapBytesPerEntry:
		spec.Threshold = math.Max(spec.Threshold, HeapBytesSlack/n)
	}
	return spec
}

// gcPauseKind names the workload of gc-pause rows.
const gcPauseKind = "gc-pause"

// GCPauseMetrics returns how gc-pause results are compared: heap objects
// and bytes per entry exactly within HeapObjectsTolerance and
// HeapBytesTolerance (or their slack over the entries, see rowSpec),
// forced-GC wall and CPU time with the U test and the
// minimum effect opt gives times (its ns/op threshold, else its first
// lower-is-better one, else DefaultThreshold).
func GCPauseMetrics(opt Options) []MetricSpec {
	thr, found := DefaultThreshold, false
	for _, s := range opt.Metrics {
		if s.Exact || s.Better != LowerIsBetter {
			continue
		}
		if s.Metric == report.MetricNsPerOp || !found {
			thr, found = s.Threshold, true
		}
	}
	var out []MetricSpec
	for _, m := range []struct {
		metric    report.Metric
		threshold float64
	}{
		{MetricHeapObjectsPerEntry, HeapObjectsTolerance},
		{MetricHeapBytesPerEntry, HeapBytesTolerance},
		{MetricForcedGCMs, thr},
		{MetricForcedGCCPUMs, thr},
	} {
		s, _ := specOf(m.metric) // all four are in report's table
		s.Threshold = m.threshold
		out = append(out, s)
	}
	return out
}

// gcValue is metric m of one child's result.
func gcValue(p report.GCPause, m report.Metric) float64 {
	n := float64(max(p.Entries, 1))
	switch m {
	case MetricHeapObjectsPerEntry:
		return (float64(p.HeapObjects) - float64(p.BaselineHeapObjects)) / n
	case MetricHeapBytesPerEntry:
		return (float64(p.HeapInUseBytes) - float64(p.BaselineHeapInUseBytes)) / n
	case MetricForcedGCMs:
		return p.ForcedGCSeconds * 1e3
	case MetricForcedGCCPUMs:
		return p.ForcedGCCPUSecond * 1e3
	}
	return math.NaN()
}

// gcEntries is one side's children for one key: the ones that measured,
// in repetition order, and how many failed or returned wrong or missing
// entries.
type gcEntries struct {
	ok                     []report.GCPause
	failed, wrong, missing int
	firstErr               string
}

func gcKey(res *report.Result, p report.GCPause) Key {
	return Key{Adapter: p.Adapter, Workload: gcPauseKind,
		Phase: report.Phase(fmt.Sprintf("value-size=%d gogc=%d", p.ValueSize, p.GOGC)), Procs: res.Env.GOMAXPROCS, Keys: p.Entries}
}

func indexGCPause(res *report.Result) map[Key]*gcEntries {
	out := map[Key]*gcEntries{}
	for _, p := range res.GCPause {
		k := gcKey(res, p)
		e := out[k]
		if e == nil {
			e = &gcEntries{}
			out[k] = e
		}
		switch {
		case p.Error != "":
			e.failed++
			if e.firstErr == "" {
				e.firstErr = p.Error
			}
			continue
		case p.Wrong > 0:
			e.wrong++
		case p.Missing > 0:
			e.missing++
		}
		e.ok = append(e.ok, p)
	}
	for _, e := range out {
		sort.SliceStable(e.ok, func(i, j int) bool { return e.ok[i].Repetition < e.ok[j].Repetition })
	}
	return out
}

// compareGCPause compares two gc-pause results: per adapter and
// configuration (entries, value size, GOGC, GOMAXPROCS), the metrics of
// GCPauseMetrics over the repetitions. Report.Options.Metrics is set to
// those metrics, so that the report renders like any other.
func compareGCPause(oldRes, newRes *report.Result, opt Options) (*Report, error) {
	if oldRes.Kind != newRes.Kind {
		return nil, fmt.Errorf("%w: OLD is a %q result and NEW a %q result", ErrNothingInCommon, kindName(oldRes), kindName(newRes))
	}
	opt.Metrics = GCPauseMetrics(opt)
	rep := &Report{Options: opt}
	oldM, newM := indexGCPause(oldRes), indexGCPause(newRes)
	var common []Key
	for k := range newM {
		if _, ok := oldM[k]; ok {
			common = append(common, k)
		} else {
			rep.OnlyNew = append(rep.OnlyNew, k)
		}
	}
	for k := range oldM {
		if _, ok := newM[k]; !ok {
			rep.OnlyOld = append(rep.OnlyOld, k)
		}
	}
	sortKeys(common)
	sortKeys(rep.OnlyNew)
	sortKeys(rep.OnlyOld)
	if len(common) == 0 {
		return nil, fmt.Errorf("%w (OLD has %d gc-pause entries, NEW %d; they must share adapter, entries, value size, GOGC and GOMAXPROCS)",
			ErrNothingInCommon, len(oldRes.GCPause), len(newRes.GCPause))
	}
	rep.NewFlags, rep.NewErrors = gcPauseNewProblems(oldM, newM, common)
	var few []string
	measured := common[:0:0]
	for _, k := range common {
		o, n := len(oldM[k].ok), len(newM[k].ok)
		switch {
		case o >= opt.MinSamples && n >= opt.MinSamples:
			measured = append(measured, k)
		case newM[k].failed > 0 && oldM[k].failed == 0:
			// Children that now fail are a regression (NewErrors), not
			// an input error.
		default:
			few = append(few, fmt.Sprintf("%s: %d old, %d new", k, o, n))
		}
	}
	if len(few) > 0 {
		return nil, fmt.Errorf("%w: need at least %d repetitions that measured per adapter (gc-pause --count 10 is recommended for gating): %s",
			ErrTooFewSamples, opt.MinSamples, strings.Join(few, "; "))
	}
	for _, spec := range opt.Metrics {
		for _, k := range measured {
			normalized := opt.Normalize != "" && !spec.Exact
			if normalized && k.Adapter == opt.Normalize {
				continue // always 1: nothing to compare
			}
			ov, err := gcValues(oldM, k, spec, normalized, opt.Normalize, "OLD")
			if err != nil {
				return nil, err
			}
			nv, err := gcValues(newM, k, spec, normalized, opt.Normalize, "NEW")
			if err != nil {
				return nil, err
			}
			row := compareValues(rowSpec(spec, k.Keys), ov, nv, opt)
			row.Key, row.Normalized = k, normalized
			rep.Rows = append(rep.Rows, row)
		}
	}
	return rep, nil
}

func kindName(r *report.Result) string {
	if r.Kind == "" {
		return report.KindRun
	}
	return r.Kind
}

// gcValues returns metric spec of key k's repetitions, divided, when
// normalized, by the reference adapter's value in the same repetition.
func gcValues(m map[Key]*gcEntries, k Key, spec MetricSpec, normalized bool, refName, side string) ([]float64, error) {
	var ref map[int]float64
	if normalized {
		rk := k
		rk.Adapter = refName
		re, ok := m[rk]
		if !ok || len(re.ok) == 0 {
			return nil, fmt.Errorf("%w %s: %s has no gc-pause result of reference adapter %q with the same configuration",
				ErrNoReference, k, side, refName)
		}
		ref = map[int]float64{}
		for _, p := range re.ok {
			ref[p.Repetition] = gcValue(p, spec.Metric)
		}
	}
	var out []float64
	for _, p := range m[k].ok {
		v := gcValue(p, spec.Metric)
		if normalized {
			r, ok := ref[p.Repetition]
			if !ok || r == 0 || math.IsNaN(r) || math.IsInf(r, 0) {
				return nil, fmt.Errorf("%w %s: %s reference %q has no usable %s in repetition %d",
					ErrNoReference, k, side, refName, spec.Metric, p.Repetition+1)
			}
			v /= r
		}
		out = append(out, v)
	}
	return out, nil
}

// gcPauseNewProblems lists what NEW got wrong and OLD did not, per key:
// children returning wrong values or losing entries (flags), and children
// that failed (errors, named by key and not by their text, which holds
// process-specific details).
func gcPauseNewProblems(oldM, newM map[Key]*gcEntries, common []Key) (flags, errs []string) {
	for _, k := range common {
		o, n := oldM[k], newM[k]
		if n.wrong > 0 && o.wrong == 0 {
			flags = append(flags, fmt.Sprintf("%s: wrong values in %d repetitions", k, n.wrong))
		}
		if n.missing > 0 && o.missing == 0 {
			flags = append(flags, fmt.Sprintf("%s: missing entries in %d repetitions", k, n.missing))
		}
		if n.failed > 0 && o.failed == 0 {
			errs = append(errs, fmt.Sprintf("%s: %d children failed, first: %s", k, n.failed, n.firstErr))
		}
	}
	return flags, errs
}
