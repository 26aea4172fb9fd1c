package report

// The one table of units: which way each figure improves and whether it
// is a deterministic count. The gobench writer takes its "Unit" lines from
// it and compare its directions and modes, so a unit's direction is
// declared once (as golang.org/x/perf's benchfmt and benchunit do for
// benchstat).

// Direction says which way a unit improves.
type Direction int8

// Directions.
const (
	LowerIsBetter Direction = iota
	HigherIsBetter
)

// String returns "lower" or "higher", the values of benchfmt's "better"
// unit metadata.
func (d Direction) String() string {
	if d == HigherIsBetter {
		return "higher"
	}
	return "lower"
}

// UnitInfo is what cachebench knows about one unit: a Metric name or a
// unit of the gobench format.
type UnitInfo struct {
	Better Direction
	// Exact units count something deterministic (allocations, wrong
	// values, lost entries): any difference between two runs is real, so
	// their means are compared without waiting for a significance test.
	Exact bool
	// BenchstatKnows marks the units benchstat has its own rules for
	// (ns/op, allocs/op, B/op): the gobench writer adds no "Unit" line
	// for them, so that benchstat treats them as it treats go test's.
	BenchstatKnows bool
}

// Metrics of gc-pause results as compare compares them: per entry and in
// milliseconds, derived from a GCPause entry.
const (
	// MetricHeapObjectsPerEntry is (heap objects after the forced GC −
	// heap objects before the adapter was built) / entries.
	MetricHeapObjectsPerEntry Metric = "heap-objects/entry"
	// MetricHeapBytesPerEntry is the same for the bytes of in-use heap
	// spans.
	MetricHeapBytesPerEntry Metric = "heap-bytes/entry"
	// MetricForcedGCMs is the wall time of the forced full collection.
	MetricForcedGCMs Metric = "forced-gc-ms"
	// MetricForcedGCCPUMs is the GC CPU time of that collection.
	MetricForcedGCCPUMs Metric = "forced-gc-cpu-ms"
)

// Units of gc-pause results in the gobench format.
const (
	unitFill        = "fill-sec"
	unitForcedGC    = "forced-gc-sec"
	unitFillGCCPU   = "fill-gc-cpu-sec"
	unitForcedGCCPU = "forced-gc-cpu-sec"
	unitPauses      = "stw-pauses"
	unitPauseMax    = "stw-max-sec"
	unitPauseTotal  = "stw-total-sec"
	unitHeapObjects = "heap-objects"
	unitHeapInUse   = "heap-inuse-B"
	unitPeakRSS     = "peak-rss-B"
	unitRSSPerEntry = "rss-B/entry"
	unitGCGetP99    = "gc-get-p99-sec"
	unitGCGetP999   = "gc-get-p99.9-sec"
	unitVerified    = "verified"
	unitMissing     = "missing"
	unitLostEntries = "lost-entries"
	// unitHeldOfBudget is what an adapter held over its budget (a ratio).
	unitHeldOfBudget = "held-of-budget"
	// Open-loop samples (OpenLoop): the rate achieved, the uncorrected
	// percentiles (the corrected ones are p50-ns, p99-ns, p99.9-ns), the
	// largest backlog, and 1 for a saturated repetition.
	unitAchieved        = "achieved-ops/s"
	unitUncorrectedP99  = "uncorrected-p99-ns"
	unitUncorrectedP999 = "uncorrected-p99.9-ns"
	unitMaxBacklog      = "max-backlog"
	unitSaturated       = "saturated"
)

var (
	lower      = UnitInfo{Better: LowerIsBetter}
	higher     = UnitInfo{Better: HigherIsBetter}
	lowerExact = UnitInfo{Better: LowerIsBetter, Exact: true}
)

// units lists every unit whose direction is known. held-of-budget (and
// held/limit, rss/limit) are absent on purpose: holding less than the
// budget is neither better nor worse, only different.
var units = map[string]UnitInfo{
	string(MetricNsPerOp):     {Better: LowerIsBetter, BenchstatKnows: true},
	string(MetricAllocsPerOp): {Better: LowerIsBetter, Exact: true, BenchstatKnows: true},
	string(MetricBytesPerOp):  {Better: LowerIsBetter, Exact: true, BenchstatKnows: true},

	string(MetricOpsPerSec):    higher,
	string(MetricHitRatio):     higher,
	string(MetricHotHitRatio):  higher,
	string(MetricColdHitRatio): higher,
	string(MetricP50):          lower,
	string(MetricP99):          lower,
	string(MetricP999):         lower,
	string(MetricWrong):        lowerExact,
	string(MetricErrors):       lowerExact,
	unitLostEntries:            lowerExact,
	unitAchieved:               higher,
	unitUncorrectedP99:         lower,
	unitUncorrectedP999:        lower,
	unitMaxBacklog:             lower,
	unitSaturated:              lowerExact,

	unitFill:        lower,
	unitForcedGC:    lower,
	unitFillGCCPU:   lower,
	unitForcedGCCPU: lower,
	unitPauses:      lower,
	unitPauseMax:    lower,
	unitPauseTotal:  lower,
	unitHeapObjects: lower,
	unitHeapInUse:   lower,
	unitPeakRSS:     lower,
	unitRSSPerEntry: lower,
	unitGCGetP99:    lower,
	unitGCGetP999:   lower,
	unitVerified:    higher,
	unitMissing:     lowerExact,

	string(MetricHeapObjectsPerEntry): lowerExact,
	string(MetricHeapBytesPerEntry):   lowerExact,
	string(MetricForcedGCMs):          lower,
	string(MetricForcedGCCPUMs):       lower,
}

// UnitOf returns what is known about unit, and false for a unit whose
// direction is not declared.
func UnitOf(unit string) (UnitInfo, bool) {
	u, ok := units[unit]
	return u, ok
}
