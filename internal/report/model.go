// Package report holds the result model that every cachebench command
// produces and consumes (typed measurement flags, coded failures), its
// serialisations (json, markdown, text, gobench), atomic file writes and
// the results/ folder index. It renders and stores; it measures nothing
// (the environment is captured by internal/machine).
//
// What a figure means is declared here once, for every renderer: the
// table of units (units.go: which way each improves, which are exact
// counts; the gobench Unit lines and compare's rules come from it), the
// phases and their gobench names (phase.go), the number formatter
// (format.go) and the table writer (table.go: report.Table, text and
// markdown). A second copy of any of them would let two outputs of the
// same result disagree.
package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/cachebench/cachebench/internal/machine"
)

// SchemaVersion is the version of the JSON result format. Bump it on any
// incompatible change; readers refuse versions they do not know.
const SchemaVersion = 1

// Result kinds.
const (
	KindRun     = "run"
	KindGCPause = "gc-pause"
)

// Result is one invocation of a measuring command: the machine, the
// configuration and every measurement taken.
type Result struct {
	Schema int    `json:"schema"`
	Tool   string `json:"tool"`
	// Kind is KindRun or KindGCPause.
	Kind     string    `json:"kind"`
	Started  time.Time `json:"started"`
	Duration Duration  `json:"duration"`
	// Interrupted is true when the run was cancelled (Ctrl-C) and holds
	// only what was measured up to then.
	Interrupted bool `json:"interrupted,omitempty"`
	// InterruptedDuring names the adapter run the cancellation cut short
	// ("adapter: workload procs=N"); it is not a failure.
	InterruptedDuring string `json:"interrupted_during,omitempty"`
	Env               Env    `json:"env"`
	// Config is the command's effective configuration (flags and derived
	// values such as the memory budget), as strings for stable output.
	Config map[string]string `json:"config"`
	// Adapters maps "adapter@workload" to the adapter's full effective
	// configuration in that workload (budgets differ between workloads).
	Adapters map[string]map[string]string `json:"adapters,omitempty"`
	// Errors lists adapter runs that failed (construction, a closed
	// server), each with a stable code; the run goes on with the others.
	Errors []Failure `json:"errors,omitempty"`
	// Skipped lists adapter and workload pairs that were not measured
	// because the workload does not apply (a write-once store cannot serve
	// a workload that writes after the build). They are not failures.
	Skipped      []string      `json:"skipped,omitempty"`
	Measurements []Measurement `json:"measurements,omitempty"`
	GCPause      []GCPause     `json:"gc_pause,omitempty"`
	// MissPenalty is the cost of one miss (a trip to the backing store)
	// the run was asked to charge: the get-or-set tables then show the
	// time per request with misses included and rank by it. 0: none.
	MissPenalty Duration `json:"miss_penalty,omitempty"`
	// SLO is the latency objective an open-loop sweep was asked to meet
	// (run --slo): the tables name the highest offered rate meeting it.
	SLO *SLO `json:"slo,omitempty"`
}

// Env records the machine and build a result was measured on. The record
// is defined by package machine, which measures it and imports nothing of
// cachebench; the data model stores it as it is.
type Env = machine.Host

// Phase names one pass of a workload over an adapter. Its string is what
// result files hold; the gobench format writes it in CamelCase (see
// Phase.BenchName).
type Phase string

// Phases of a measurement.
const (
	PhaseInsert   Phase = "insert"
	PhaseLookup   Phase = "lookup"
	PhaseMixed    Phase = "mixed"
	PhaseGetOrSet Phase = "get-or-set"
	// PhaseLookupCold is a lookup pass after the store's pages were dropped
	// from the page cache.
	PhaseLookupCold Phase = "lookup-cold"
	// PhaseOpen is the time to open a frozen store (one op per repetition).
	PhaseOpen Phase = "open"
	// PhaseLookupBatch is a batched lookup (BatchGetter).
	PhaseLookupBatch Phase = "lookup-batch"
	// PhaseReadVector reads a float64 vector and sums it (the read-vector
	// workload, engine.Float64sStore).
	PhaseReadVector Phase = "read-vector"
)

// Measurement is one adapter in one workload phase at one GOMAXPROCS,
// repeated len(Samples) times.
type Measurement struct {
	Adapter  string `json:"adapter"`
	Workload string `json:"workload"` // e.g. "insert-lookup", "mixed/zipf"
	Phase    Phase  `json:"phase"`
	// Procs is the GOMAXPROCS of the run; a phase that runs on fewer
	// goroutines (a file store's build, open) says so in Note.
	Procs int `json:"procs"`
	Keys  int `json:"keys"`
	// Samples holds one entry per repetition (--count).
	Samples []Sample `json:"samples"`
	// Flags marks problems that must be shown next to the figures
	// (wrong values, lost entries).
	Flags []Flag `json:"flags,omitempty"`
	// Note explains what the figure includes (e.g. "build incl. fsync").
	Note string `json:"note,omitempty"`
	// Reference names the adapter whose time the tables divide this
	// measurement's by, repetition by repetition (the same workload,
	// phase and GOMAXPROCS): read-vector's text+parse store. Empty: no
	// ratio.
	Reference string `json:"reference,omitempty"`
	// Rate is the offered rate of an open-loop measurement (run --rate):
	// operations per second across all workers, each operation timed from
	// its intended start on the schedule. 0 for a closed loop.
	Rate float64 `json:"rate,omitempty"`
	// Arrivals is the open loop's arrival process (ArrivalsUniform or
	// ArrivalsPoisson); empty for a closed loop.
	Arrivals string `json:"arrivals,omitempty"`
}

// Sample is one repetition of a measurement.
type Sample struct {
	Ops         int64   `json:"ops"`
	NsPerOp     float64 `json:"ns_per_op"`
	OpsPerSec   float64 `json:"ops_per_sec"`
	AllocsPerOp float64 `json:"allocs_per_op"`
	BytesPerOp  float64 `json:"bytes_per_op"`
	// Hits and Misses count lookups; HitRatio is Hits/(Hits+Misses), or -1
	// when the phase does no lookups.
	Hits     int64   `json:"hits"`
	Misses   int64   `json:"misses"`
	HitRatio float64 `json:"hit_ratio"`
	// HotHitRatio and ColdHitRatio split the hit ratio by key temperature
	// for skewed distributions (-1 when not applicable).
	HotHitRatio  float64 `json:"hot_hit_ratio"`
	ColdHitRatio float64 `json:"cold_hit_ratio"`
	// Wrong counts values read back that differ from what was written.
	Wrong int64 `json:"wrong"`
	// Errors counts operations that returned an error.
	Errors  int64   `json:"errors"`
	Latency Latency `json:"latency"`
	// HeldBytes, LimitBytes and RSSBytes are read after a get-or-set pass
	// from adapters that report them (engine.Footprinter): the bytes the
	// cache says it holds, its configured limit, and the resident memory
	// of the servers cachebench started. Zero when not reported.
	HeldBytes  int64 `json:"held_bytes,omitempty"`
	LimitBytes int64 `json:"limit_bytes,omitempty"`
	RSSBytes   int64 `json:"rss_bytes,omitempty"`
	// Held is what the adapter held after the pass by its own account,
	// next to its budget (mixed and get-or-set passes); nil elsewhere.
	Held *Held `json:"held,omitempty"`
	// NewNs is the wall time of the adapter's constructor, on the insert
	// pass of insert-lookup (in-memory adapters): work a cache does
	// before its first Set, which the pass's own figures leave out.
	// Zero where not measured.
	NewNs float64 `json:"new_ns,omitempty"`
	// HugeBytes is how much more of the process's memory was on
	// transparent huge pages (AnonHugePages) at the end of the insert
	// pass of insert-lookup than before the adapter's constructor ran
	// (in-memory adapters, Linux): the 2 MiB pages the adapter's memory
	// got, whose TLB reach the lookup time depends on. Zero where not
	// measured or none.
	HugeBytes int64 `json:"huge_bytes,omitempty"`
	// Open holds what an open-loop pass measures beyond a closed loop's
	// figures; nil for a closed loop. In an open-loop sample Latency is
	// the corrected latency, from each operation's intended start, and
	// every operation is timed (not one in --latency-every).
	Open *OpenLoop `json:"open,omitempty"`
}

// OverBudgetTolerance is how far past its budget an adapter may hold
// before it is flagged (FlagOverBudget).
const OverBudgetTolerance = 0.05

// Held is an adapter's occupancy after a pass, read from its statistics
// (or its Len), and the budget the run gave it.
type Held struct {
	// Entries and Bytes held; -1 when the adapter does not say.
	Entries int64 `json:"entries"`
	Bytes   int64 `json:"bytes"`
	// BudgetEntries and BudgetBytes are the run's budget.
	BudgetEntries int64 `json:"budget_entries"`
	BudgetBytes   int64 `json:"budget_bytes"`
	// Basis is what the adapter is judged on: "bytes" for adapters that
	// report their memory, "entries" for the others, "" when it reports
	// neither (never flagged).
	Basis string `json:"basis,omitempty"`
	// Unbounded is set for an adapter that never evicts by design
	// (engine.Factory.Unbounded: map, syncmap). Holding more than the
	// budget is then what it is, not a fault: it is never over budget,
	// and past the budget it is marked FlagUnbounded instead.
	Unbounded bool `json:"unbounded,omitempty"`
}

// Ratio is held over budget on the judged basis (0 when unknown).
func (h *Held) Ratio() float64 {
	if h == nil {
		return 0
	}
	switch h.Basis {
	case "bytes":
		if h.BudgetBytes > 0 {
			return float64(h.Bytes) / float64(h.BudgetBytes)
		}
	case "entries":
		if h.BudgetEntries > 0 {
			return float64(h.Entries) / float64(h.BudgetEntries)
		}
	}
	return 0
}

// Over reports whether a bounded adapter held more than the budget, past
// OverBudgetTolerance.
func (h *Held) Over() bool { return h != nil && !h.Unbounded && h.Beyond() }

// Beyond reports whether more than the budget is held, past
// OverBudgetTolerance, whatever the adapter's design.
func (h *Held) Beyond() bool { return h.Ratio() > 1+OverBudgetTolerance }

// Latency holds sampled per-operation latency percentiles in nanoseconds.
type Latency struct {
	Samples int64   `json:"samples"`
	P50     float64 `json:"p50_ns"`
	P99     float64 `json:"p99_ns"`
	P999    float64 `json:"p999_ns"`
	Max     float64 `json:"max_ns"`
}

// GCPause is one adapter's result in the gc-pause command, one entry per
// repetition and child process.
type GCPause struct {
	Adapter    string `json:"adapter"`
	Entries    int    `json:"entries"`
	ValueSize  int    `json:"value_size"`
	GOGC       int    `json:"gogc"`
	Repetition int    `json:"repetition"`

	FillSeconds float64 `json:"fill_seconds"`
	// STW pauses over the whole child process, from
	// /sched/pauses/total/gc:seconds.
	PauseCount        uint64  `json:"pause_count"`
	PauseMaxSeconds   float64 `json:"pause_max_seconds"`
	PauseTotalSeconds float64 `json:"pause_total_seconds"`
	// ForcedGCSeconds is the wall time of one runtime.GC() after the fill.
	ForcedGCSeconds   float64 `json:"forced_gc_seconds"`
	FillGCCPUSeconds  float64 `json:"fill_gc_cpu_seconds"`
	ForcedGCCPUSecond float64 `json:"forced_gc_cpu_seconds"`
	HeapObjects       uint64  `json:"heap_objects"`
	HeapInUseBytes    uint64  `json:"heap_inuse_bytes"`
	PeakRSSBytes      uint64  `json:"peak_rss_bytes"`
	RSSBytesPerEntry  float64 `json:"rss_bytes_per_entry"`
	// Latency of Gets issued from another goroutine during forced GC
	// cycles, and of the same goroutine's Gets between them (GCReads says
	// how many cycles; results before it had one cycle and no outside).
	GetDuringGC  Latency     `json:"get_during_gc"`
	GetOutsideGC Latency     `json:"get_outside_gc"`
	GCReads      GCReadPhase `json:"gc_reads"`
	// The heap before the adapter was built, so that what the entries
	// hold is HeapObjects and HeapInUseBytes minus these (0 in older results).
	BaselineHeapObjects    uint64 `json:"baseline_heap_objects,omitempty"`
	BaselineHeapInUseBytes uint64 `json:"baseline_heap_inuse_bytes,omitempty"`
	// Verified, Missing and Wrong describe the sample read back after the fill.
	Verified int64  `json:"verified"`
	Missing  int64  `json:"missing"`
	Wrong    int64  `json:"wrong"`
	Error    string `json:"error,omitempty"`
}

// Duration is a time.Duration that serialises as seconds (a float) so the
// JSON is readable by tools outside Go.
type Duration time.Duration

// MarshalJSON writes the duration in seconds.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).Seconds())
}

// UnmarshalJSON reads a duration in seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s float64
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return fmt.Errorf("duration: not finite: %v", s)
	}
	*d = Duration(math.Round(s * float64(time.Second)))
	return nil
}

// WriteJSON writes r as indented JSON.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("report: encode json: %w", err)
	}
	return nil
}

// KindHitRatio is the kind of a hit-ratio result (package hitratio's
// Result): a document of its own shape, which ReadJSON refuses by name.
const KindHitRatio = "hitratio"

// ErrHitRatioResult is wrapped by ReadJSON's error for a hit-ratio result.
var ErrHitRatioResult = errors.New("this is a hit-ratio result (cachebench hitratio); compare, merge and report read the results of run and gc-pause: render it with cachebench hitratio --from FILE (--format text or markdown)")

// ReadJSON decodes one result and checks its kind, its schema version
// and its figures (Result.Check); the input must hold exactly one JSON
// document.
func ReadJSON(r io.Reader) (*Result, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("report: read json: %w", err)
	}
	return readJSON(data, "json")
}

// readJSON is ReadJSON of the contents of the file name, named in errors
// with the line at fault.
func readJSON(data []byte, name string) (*Result, error) {
	// The kind first: a document of another shape would otherwise fail
	// on its first field of a different type, with a message that names
	// the field and not the document.
	var head struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(data, &head) == nil && head.Kind == KindHitRatio {
		return nil, fmt.Errorf("report: %w", ErrHitRatioResult)
	}
	var res Result
	if err := DecodeOne(data, name, &res); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if res.Tool != "cachebench" {
		return nil, fmt.Errorf("report: not a cachebench result (tool %q)", res.Tool)
	}
	if res.Schema != SchemaVersion {
		return nil, fmt.Errorf("report: unsupported schema version %d (want %d)", res.Schema, SchemaVersion)
	}
	if err := Locate(res.Check(), data, name); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return &res, nil
}
