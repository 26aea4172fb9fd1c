// Package workloads describes and pre-generates the key sets, values and
// access sequences that cachebench drives against adapters. Everything is
// derived from a seed before any clock starts, so the same seed gives the
// same keys, values and access order on every machine. Specs builds the
// specs of a run from the parameters a command line gives.
package workloads

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// Scenarios.
const (
	// InsertLookup inserts every key once, then looks every key up once in
	// shuffled order (the shape of AxonCache's published benchmark).
	InsertLookup = "insert-lookup"
	// Mixed prefills every key, then runs a read/write mix drawn from a
	// key distribution.
	Mixed = "mixed"
	// GetOrSet is look-aside use: get, and on a miss set, with a capacity
	// smaller than the key space.
	GetOrSet = "get-or-set"
	// ReadVector stores a 32-element float64 vector under every key, then
	// reads every key once in shuffled order and uses the vector (sums
	// it), through the adapters that hold vectors (engine.Float64sStore;
	// see vector.go).
	ReadVector = "read-vector"
	// Trace is get-or-set over the requests of a trace file, replayed once
	// from an empty cache (workload name "trace:[FORMAT:]FILE").
	Trace = "trace"
)

// TracePrefix starts the name of a trace workload.
const TracePrefix = Trace + ":"

// Key distributions.
const (
	Uniform = "uniform"
	HotCold = "hotcold"
	Zipf    = "zipf"
)

// Scenarios lists the scenario names with a line of description each.
var Scenarios = map[string]string{
	InsertLookup: "insert N keys key_%d -> value, then look each up once in shuffled order; insert and lookup reported separately",
	Mixed:        "prefill N keys, then a read/write mix (default 90/10) drawn from a distribution",
	GetOrSet:     "look-aside: get, on a miss set; capacity smaller than the key space; overall/hot/cold hit ratios",
	ReadVector:   "store a 32-element float64 vector per key, then read each once in shuffled order and sum it (adapters of group vectors); ratios to mmapstore-text",
	Trace:        "trace:[FORMAT:]FILE: get-or-set over a trace's keys (and sizes), replayed once from an empty cache at --capacity of its objects",
}

// Dists lists the key distributions with a line of description each.
var Dists = map[string]string{
	Uniform: "every key equally likely",
	HotCold: "a hot fraction of keys (default 20%) receives a fraction of accesses (default 80%)",
	Zipf:    "zipf over key ranks (exponent configurable), ranks scrambled so hot keys are not adjacent",
}

// aliases maps short workload names to scenario/dist.
var aliases = map[string]string{
	Uniform:    Mixed + "/" + Uniform,
	HotCold:    Mixed + "/" + HotCold,
	Zipf:       Mixed + "/" + Zipf,
	GetOrSet:   GetOrSet + "/" + HotCold,
	"hot-cold": Mixed + "/" + HotCold,
}

// Names returns every accepted workload name (canonical names first, then
// aliases), sorted, for help texts and error messages.
func Names() []string {
	names := []string{InsertLookup, ReadVector}
	for _, sc := range []string{Mixed, GetOrSet} {
		for _, d := range []string{Uniform, HotCold, Zipf} {
			names = append(names, sc+"/"+d)
		}
	}
	for p := range presets {
		names = append(names, p)
	}
	var al []string
	for a := range aliases {
		al = append(al, a)
	}
	sort.Strings(al)
	return append(names, al...)
}

// Alias returns what a short name stands for, or "" if name is canonical.
func Alias(name string) string { return aliases[name] }

// Spec describes one workload. The zero value is not valid: start from
// DefaultSpec and override fields.
type Spec struct {
	Scenario string
	Dist     string
	// Keys is the size of the key space.
	Keys int
	// Ops is the number of operations of a mixed or get-or-set pass
	// (insert-lookup always does Keys of each).
	Ops int
	// Seed drives every random choice.
	Seed uint64
	// HotKeys is the fraction of keys that are hot (hotcold; also the
	// boundary between hot and cold ranks for zipf hit ratios).
	HotKeys float64
	// HotAccess is the fraction of accesses that go to hot keys (hotcold).
	HotAccess float64
	// ZipfS is the zipf exponent (> 1).
	ZipfS float64
	// ReadRatio is the fraction of reads in the mixed scenario.
	ReadRatio float64
	// Capacity is the cache capacity of get-or-set as a fraction of Keys.
	Capacity float64
	// ValueMin and ValueMax bound the value size in bytes. Zero for both
	// means values "val_%d" (AxonCache's shape).
	ValueMin, ValueMax int
	// Preset is the name of a named variant of the scenario ("umem" for
	// get-or-set/umem), "" for scenario/distribution workloads. It is
	// part of Name, and its defaults win over flags the user did not set.
	Preset string
	// LatencyEvery, if positive, is the latency sampling interval of this
	// workload (one operation in LatencyEvery), overriding the run's.
	// get-or-set/umem times every operation: its 16,384 requests of tens
	// of microseconds each left 256 samples at one in 64, and a p99 read
	// from the third-slowest of 256 moved by half between repetitions.
	LatencyEvery int
	// TraceSource is the trace of a Trace workload. Its keys, their count
	// (Keys), the requests (Ops) and the value sizes come from the trace
	// when the workload is generated; Capacity is a fraction of its
	// objects.
	TraceSource trace.Source
}

// DefaultSpec returns the defaults for a workload name such as
// "insert-lookup", "zipf" or "get-or-set/uniform".
func DefaultSpec(name string) (Spec, error) {
	if p, ok := presets[name]; ok {
		return p(), nil
	}
	full := name
	if a, ok := aliases[name]; ok {
		full = a
	}
	sc, dist, _ := strings.Cut(full, "/")
	s := Spec{
		Scenario:  sc,
		Dist:      dist,
		Keys:      1_000_000,
		Seed:      1,
		HotKeys:   0.2,
		HotAccess: 0.8,
		ZipfS:     1.1,
		ReadRatio: 0.9,
		Capacity:  0.1,
	}
	switch sc {
	case InsertLookup:
		if dist != "" && dist != Uniform {
			return Spec{}, fmt.Errorf("workload %q: insert-lookup visits every key once; it takes no distribution", name)
		}
		s.Dist = Uniform
	case ReadVector:
		if dist != "" && dist != Uniform {
			return Spec{}, fmt.Errorf("workload %q: read-vector reads every key once; it takes no distribution", name)
		}
		s.Dist = Uniform
	case Mixed, GetOrSet:
		if _, ok := Dists[dist]; !ok {
			return Spec{}, fmt.Errorf("unknown workload %q (valid: %s)", name, strings.Join(Names(), ", "))
		}
		if sc == GetOrSet {
			// With values of a few bytes, every arena cache's minimum size
			// (fastcache: 32 MiB) would hold the whole key space and the hit
			// ratios would compare nothing. Values of a realistic size make
			// the budget bind for every adapter.
			s.ValueMin, s.ValueMax = 64, 1024
		}
	default:
		return Spec{}, fmt.Errorf("unknown workload %q (valid: %s)", name, strings.Join(Names(), ", "))
	}
	return s, nil
}

// Name returns the canonical name, e.g. "insert-lookup" or "mixed/zipf".
func (s Spec) Name() string {
	if s.Scenario == Trace {
		return TracePrefix + s.TraceSource.DisplayName()
	}
	if s.Preset != "" {
		return s.Scenario + "/" + s.Preset
	}
	if s.Scenario == InsertLookup || s.Scenario == ReadVector {
		return s.Scenario
	}
	return s.Scenario + "/" + s.Dist
}

// WritesEveryKey reports whether the workload writes every key of its key
// space before the reads it measures (insert-lookup's and read-vector's
// insert, mixed's prefill), so that a read that misses is an entry the
// adapter lost.
func (s Spec) WritesEveryKey() bool {
	return s.Scenario == InsertLookup || s.Scenario == Mixed || s.Scenario == ReadVector
}

// visitsEveryKey reports whether the workload's passes visit every key
// once (so --ops does not apply).
func (s Spec) visitsEveryKey() bool {
	return s.Scenario == InsertLookup || s.Scenario == ReadVector
}

// MaxKeys bounds the key space: access sequences use uint32 indexes with
// the top bit reserved for the operation kind.
const MaxKeys = 1 << 30

// Validate checks every field and names the offending one (by its flag
// name, since that is what a user typed).
func (s Spec) Validate() error {
	if s.Scenario == Trace && s.Keys == 0 {
		// Not read yet: Generate validates again with the trace's figures.
		switch {
		case s.TraceSource.Path == "":
			return fmt.Errorf("--workload %s needs a file: trace:[FORMAT:]FILE", TracePrefix)
		case !(s.Capacity > 0 && s.Capacity <= 1):
			return fmt.Errorf("--capacity must be a fraction in (0,1], got %v", s.Capacity)
		}
		return nil
	}
	switch {
	case s.Keys <= 0 || s.Keys > MaxKeys:
		return fmt.Errorf("--keys must be in 1..%d, got %d", MaxKeys, s.Keys)
	case !s.visitsEveryKey() && (s.Ops <= 0 || s.Ops > 1<<31):
		return fmt.Errorf("--ops must be in 1..%d, got %d", 1<<31, s.Ops)
	case !(s.HotKeys > 0 && s.HotKeys < 1):
		return fmt.Errorf("--hot-keys must be a fraction in (0,1), got %v", s.HotKeys)
	case !(s.HotAccess > 0 && s.HotAccess < 1):
		return fmt.Errorf("--hot-access must be a fraction in (0,1), got %v", s.HotAccess)
	case !(s.ZipfS > 1) || math.IsInf(s.ZipfS, 0) || s.ZipfS > 10:
		return fmt.Errorf("--zipf exponent must be in (1,10] (Go's rand.Zipf needs s > 1), got %v", s.ZipfS)
	case !(s.ReadRatio >= 0 && s.ReadRatio <= 1):
		return fmt.Errorf("--read-ratio must be in [0,1], got %v", s.ReadRatio)
	case !(s.Capacity > 0 && s.Capacity <= 1):
		return fmt.Errorf("--capacity must be a fraction in (0,1], got %v", s.Capacity)
	case s.ValueMin < 0 || s.ValueMax < s.ValueMin || s.ValueMax > 16<<20:
		return fmt.Errorf("--value-size must be N or MIN-MAX with 0 <= MIN <= MAX <= 16 MiB, got %d-%d", s.ValueMin, s.ValueMax)
	case s.ValueMax > 0 && s.ValueMin < minSizedValue:
		return fmt.Errorf("--value-size minimum is %d bytes (values carry their key index and a check), got %d", minSizedValue, s.ValueMin)
	case s.LatencyEvery < 0 || s.LatencyEvery&(s.LatencyEvery-1) != 0:
		return fmt.Errorf("--latency-every must be a power of two, got %d", s.LatencyEvery)
	case s.Scenario == ReadVector && s.ValueMax > 0:
		return fmt.Errorf("--value-size does not apply to read-vector: its values are %d-element float64 vectors", VectorLen)
	}
	if s.Scenario == ReadVector {
		if est := int64(s.Keys) * VectorLen * 8; est > 8<<30 {
			return fmt.Errorf("--keys %d needs about %d GiB of pre-generated vectors; at most 8 GiB is allowed", s.Keys, est>>30)
		}
	}
	// The pre-generated values must fit in memory comfortably.
	if est := int64(s.Keys) * int64(s.ValueMax+s.ValueMin) / 2; est > 8<<30 {
		return fmt.Errorf("--keys × --value-size needs about %d GiB of pre-generated values; at most 8 GiB is allowed", est>>30)
	}
	// So must the operation streams (an Op, a value reference and the key
	// bytes per operation, short values inline).
	if !s.visitsEveryKey() {
		if est := int64(s.Ops) * int64(16+2*MaxKeySize); est > 8<<30 {
			return fmt.Errorf("--ops %d needs about %d GiB of pre-generated operation streams; at most 8 GiB is allowed", s.Ops, est>>30)
		}
	}
	return nil
}

// ParseValueSize parses "N" or "MIN-MAX", each a byte size as parse.Size
// reads it ("64", "4KiB"); "0" selects val_%d values.
func ParseValueSize(v string) (min, max int, err error) {
	lo, hi, isRange := strings.Cut(v, "-")
	size := func(s string) (int, error) {
		n, err := parse.Size(s)
		if err != nil {
			return 0, fmt.Errorf("--value-size %q: %w", v, err)
		}
		if n > math.MaxInt32 {
			return 0, fmt.Errorf("--value-size %q: %d bytes is above %d", v, n, math.MaxInt32)
		}
		return int(n), nil
	}
	if min, err = size(lo); err != nil {
		return 0, 0, err
	}
	max = min
	if isRange {
		if max, err = size(hi); err != nil {
			return 0, 0, err
		}
	}
	return min, max, nil
}
