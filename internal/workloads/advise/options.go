// Package advise answers "which cache for my service?": given the shape
// of a service (key count, value sizes, access pattern, cache capacity,
// read ratio, CPUs, what a miss costs), it plans what fits a time budget,
// runs it through the drivers the other commands use (the runner's
// get-or-set, insert-lookup and mixed passes; a short gc-pause child per
// adapter; for a trace, the hit-ratio lab's replay beside Belady's OPT),
// and turns the figures into a verdict, one table, the reasons
// an adapter was flagged or left out, and the commands that reproduce
// every figure.
//
// The verdict ranks by the time per request with misses priced (ns/op +
// miss ratio × the miss penalty), the figure a look-aside cache costs its
// caller. The winner is compared with each runner-up by the Mann-Whitney
// test of package report (report.Separated); those it is not told apart
// from are named as tied.
//
// Imports: the drivers' set (engine, workloads, report, parse, trace) and
// the drivers themselves (runner, gcpause, hitratio); only commands
// import it.
package advise

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/hitratio"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// Defaults a command states in its help.
const (
	DefaultBudget      = 3 * time.Minute
	DefaultMissPenalty = 100 * time.Microsecond
	DefaultAccess      = "zipf"
	DefaultCapacity    = "10%"
	DefaultValueSize   = "1KiB"
	DefaultKeys        = 1_000_000
	DefaultReadRatio   = 0.9
	// DefaultAdapters is the group of in-memory caches.
	DefaultAdapters = "memory"
)

// InputError marks an error in what the user asked (exit 2 in a command):
// an unknown access pattern, a capacity above the keys, a budget too
// small for anything, a trace that cannot be read.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// Access is the access pattern of the service.
type Access struct {
	// Dist is workloads.Zipf, HotCold or Uniform; "" for a trace.
	Dist string `json:"dist,omitempty"`
	// ZipfS is the zipf exponent; HotKeys and HotAccess the hotcold split.
	ZipfS     float64 `json:"zipf_s,omitempty"`
	HotKeys   float64 `json:"hot_keys,omitempty"`
	HotAccess float64 `json:"hot_access,omitempty"`
	// Trace is the [FORMAT:]FILE of a trace (a vendored name such as
	// lirs/cs, or a file on disk).
	Trace string `json:"trace,omitempty"`
	// Arg is the pattern as written.
	Arg string `json:"arg"`
}

// AccessHelp says what ParseAccess reads.
const AccessHelp = `zipf[:S] (S > 1, default 1.1), hotcold[:HOT/ACCESS] (fractions or percentages, default 20%/80%), uniform, or trace:[FORMAT:]FILE (a recorded trace, or a vendored one such as lirs/cs)`

// ParseAccess reads an access pattern (AccessHelp).
func ParseAccess(s string) (Access, error) {
	a := Access{Arg: s, ZipfS: 1.1, HotKeys: 0.2, HotAccess: 0.8}
	name, arg, hasArg := strings.Cut(strings.TrimSpace(s), ":")
	switch name {
	case workloads.Zipf:
		a.Dist = workloads.Zipf
		if hasArg {
			v, err := strconv.ParseFloat(arg, 64)
			if err != nil || !(v > 1 && v <= 10) {
				return a, fmt.Errorf("--access %q: the zipf exponent must be a number in (1, 10], such as zipf:1.1", s)
			}
			a.ZipfS = v
		}
	case workloads.HotCold:
		a.Dist = workloads.HotCold
		if hasArg {
			hot, acc, ok := strings.Cut(arg, "/")
			h, err1 := parse.Fraction(hot)
			c, err2 := parse.Fraction(acc)
			if !ok || err1 != nil || err2 != nil || h >= 1 || c >= 1 {
				return a, fmt.Errorf("--access %q: want hotcold:HOT/ACCESS with two fractions below 1, such as hotcold:0.2/0.8 or hotcold:20%%/80%%", s)
			}
			a.HotKeys, a.HotAccess = h, c
		}
	case workloads.Uniform:
		if hasArg {
			return a, fmt.Errorf("--access %q: uniform takes no parameter", s)
		}
		a.Dist = workloads.Uniform
	case workloads.Trace:
		if arg == "" {
			return a, fmt.Errorf("--access %q: a trace needs a file: trace:[FORMAT:]FILE", s)
		}
		a.Trace = arg
	default:
		return a, fmt.Errorf("--access %q: unknown access pattern (valid: %s)", s, AccessHelp)
	}
	return a, nil
}

// String describes the pattern for the verdict ("zipf 1.1").
func (a Access) String() string {
	switch a.Dist {
	case workloads.Zipf:
		return "zipf " + strconv.FormatFloat(a.ZipfS, 'g', -1, 64)
	case workloads.HotCold:
		return fmt.Sprintf("hotcold %g%%/%g%%", 100*a.HotKeys, 100*a.HotAccess)
	case workloads.Uniform:
		return "uniform"
	}
	return "trace " + a.Trace
}

// Options are the question and the limits of one advise run.
type Options struct {
	// Keys is the key count of the service (ignored for a trace, which
	// has its own objects).
	Keys int
	// ValueSize is "N" or "MIN-MAX" bytes (workloads.ParseValueSize).
	ValueSize string
	// Access is the access pattern.
	Access Access
	// Capacity is what the cache holds: an entry count, a fraction of the
	// keys or a byte size, as hitratio reads a capacity.
	Capacity string
	// ReadRatio is the share of reads in the mixed pass.
	ReadRatio float64
	// CPU is the GOMAXPROCS of every pass (one worker per proc).
	CPU int
	// MissPenalty is what a miss costs the service.
	MissPenalty time.Duration
	// Adapters is a list of adapter names or groups (engine.Resolve).
	Adapters string
	// Budget bounds the wall time of the measurements.
	Budget time.Duration
	// Count, if positive, is the number of get-or-set repetitions; 0 lets
	// the plan choose as many as the budget allows, up to MaxReps.
	Count int
	// Seed drives every random choice of the workloads.
	Seed uint64
	// NoGC leaves out the gc-pause children (memory per entry and GC
	// cost): they re-execute the binary, which a test binary may not serve.
	NoGC bool
	// ResolveTrace turns a trace argument into its source (a command finds
	// vendored traces by name); nil reads [FORMAT:]FILE from disk.
	ResolveTrace func(arg string) trace.Source
	// Progress, if set, is told about each adapter run; Log receives the
	// plan, its estimate and one line per stage.
	Progress func(done, total int, desc string)
	Log      func(line string)
}

func (o *Options) log(format string, args ...any) {
	if o.Log != nil {
		o.Log(fmt.Sprintf(format, args...))
	}
}

// question is Options checked and turned into the runner's terms.
type question struct {
	o         Options
	factories []engine.Factory
	valueMin  int
	valueMax  int
	capacity  hitratio.Capacity
	// fraction is the capacity as a fraction of the keys (synthetic
	// access) or of the trace's objects.
	fraction float64
}

// check validates every option before anything is generated.
func check(o Options) (*question, error) {
	q := &question{o: o}
	var err error
	if q.factories, err = engine.Resolve(o.Adapters); err != nil {
		return nil, inputErrorf("--adapters: %w", err)
	}
	for _, f := range q.factories {
		if f.Kind != engine.InMemory {
			return nil, inputErrorf("--adapters: %s is a %s adapter; advise compares in-memory caches", f.Name, f.Kind)
		}
	}
	if len(q.factories) < 1 {
		return nil, inputErrorf("--adapters selects no adapter")
	}
	switch {
	case o.CPU < 1 || o.CPU > 1024:
		return nil, inputErrorf("--cpu must be in 1..1024, got %d", o.CPU)
	case o.MissPenalty < 0:
		return nil, inputErrorf("--miss-penalty must not be negative, got %v", o.MissPenalty)
	case !(o.ReadRatio >= 0 && o.ReadRatio <= 1):
		return nil, inputErrorf("--read-ratio must be in [0,1], got %v", o.ReadRatio)
	case o.Budget <= 0:
		return nil, inputErrorf("--budget must be positive, got %v", o.Budget)
	case o.Count < 0 || o.Count > 1000:
		return nil, inputErrorf("--count must be in 1..1000, got %d", o.Count)
	case o.Count > 0 && o.Count < MinReps:
		return nil, inputErrorf("--count %d cannot tell two adapters apart: the Mann-Whitney test needs at least %d repetitions each (use --count %d or more, or leave it to the budget)", o.Count, MinReps, MinReps)
	}
	if q.valueMin, q.valueMax, err = workloads.ParseValueSize(o.ValueSize); err != nil {
		return nil, &InputError{err}
	}
	caps, err := hitratio.ParseCapacities(o.Capacity)
	if err != nil || len(caps) != 1 {
		if err == nil {
			err = errors.New("give one capacity")
		}
		return nil, inputErrorf("--capacity %q: %w (an entry count such as 100000, a fraction such as 10%%, or a size such as 64MiB)", o.Capacity, err)
	}
	q.capacity = caps[0]
	if o.Access.Trace != "" {
		if q.capacity.Fraction == 0 {
			return nil, inputErrorf("--capacity %q: with a trace, the capacity is a fraction of its objects, such as 10%%", o.Capacity)
		}
		q.fraction = q.capacity.Fraction
		return q, nil
	}
	if o.Keys < 1 || o.Keys > workloads.MaxKeys {
		return nil, inputErrorf("--keys must be in 1..%d, got %d", workloads.MaxKeys, o.Keys)
	}
	meanEntry := float64(workloads.MaxKeySize) + float64(q.valueMin+q.valueMax)/2
	switch c := q.capacity; {
	case c.Entries > 0:
		if c.Entries > o.Keys {
			return nil, inputErrorf("--capacity %d entries is above the %d keys: a cache that holds every key needs no advice on evictions (give at most %d)", c.Entries, o.Keys, o.Keys)
		}
		q.fraction = float64(c.Entries) / float64(o.Keys)
	case c.Bytes > 0:
		entries := float64(c.Bytes) / (meanEntry + workloads.EntryOverhead)
		if entries > float64(o.Keys) {
			return nil, inputErrorf("--capacity %s holds about %.0f entries of %.0f bytes, above the %d keys (give at most %s)",
				o.Capacity, entries, meanEntry+workloads.EntryOverhead, o.Keys, strconv.FormatInt(int64(math.Ceil(float64(o.Keys)*(meanEntry+workloads.EntryOverhead))), 10)+"B")
		}
		q.fraction = max(entries/float64(o.Keys), 1/float64(o.Keys))
	default:
		q.fraction = c.Fraction
	}
	return q, nil
}

// specs are the workloads of the question: get-or-set (or the trace) at
// the capacity, insert-lookup and mixed at the shape.
func (q *question) specs() (gos, il, mixed workloads.Spec, err error) {
	o := q.o
	base := func(name string) (workloads.Spec, error) {
		s, err := workloads.DefaultSpec(name)
		if err != nil {
			return s, err
		}
		s.Keys, s.Ops, s.Seed = o.Keys, o.Keys, o.Seed
		s.ValueMin, s.ValueMax = q.valueMin, q.valueMax
		s.ZipfS, s.HotKeys, s.HotAccess = o.Access.ZipfS, o.Access.HotKeys, o.Access.HotAccess
		s.ReadRatio, s.Capacity = o.ReadRatio, q.fraction
		return s, s.Validate()
	}
	if o.Access.Trace != "" {
		ss, err := workloads.Specs(workloads.TracePrefix+o.Access.Trace, workloads.Params{
			Seed: o.Seed, Capacity: q.fraction, ResolveTrace: o.ResolveTrace,
		})
		if err != nil {
			return gos, il, mixed, &InputError{err}
		}
		return ss[0], il, mixed, nil
	}
	if gos, err = base(workloads.GetOrSet + "/" + o.Access.Dist); err != nil {
		return gos, il, mixed, &InputError{err}
	}
	if il, err = base(workloads.InsertLookup); err != nil {
		return gos, il, mixed, &InputError{err}
	}
	if mixed, err = base(workloads.Mixed + "/" + o.Access.Dist); err != nil {
		return gos, il, mixed, &InputError{err}
	}
	return gos, il, mixed, nil
}
