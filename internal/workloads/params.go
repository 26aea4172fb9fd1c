package workloads

import (
	"fmt"
	"strings"

	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// Params are the workload settings a command line gives once for every
// workload of a run; Specs applies them to each named workload's defaults.
type Params struct {
	// Keys is the size of the key space; Ops the operations of a mixed or
	// get-or-set pass (0: Keys).
	Keys, Ops int
	Seed      uint64
	// ValueSize is "N" or "MIN-MAX" bytes; "" keeps each workload's default.
	ValueSize           string
	HotKeys, HotAccess  float64
	ZipfS               float64
	ReadRatio, Capacity float64
	// LatencyEvery samples the latency of one operation in this many; 0
	// leaves every workload to the run's own interval.
	LatencyEvery int
	// Explicit, if set, reports whether the user gave the flag of that
	// name ("keys", "ops", "value-size", ...). A preset workload (such as
	// get-or-set/umem) keeps its own default for every flag not given;
	// other workloads take every field.
	Explicit func(flag string) bool
	// ResolveTrace, if set, turns the ARG of a workload "trace:ARG" into
	// its source (the command line also finds vendored traces by name);
	// without it ARG is [FORMAT:]FILE on disk.
	ResolveTrace func(arg string) trace.Source
}

// Specs returns one validated spec per name of the comma-separated list,
// each a DefaultSpec with p applied. Errors name the flag at fault
// (--workload, --keys, ...) since they are shown to the user as they are.
func Specs(list string, p Params) ([]Spec, error) {
	names, err := parse.List(list)
	if err != nil {
		return nil, fmt.Errorf("--workload: %w (valid: %s)", err, strings.Join(Names(), ", "))
	}
	var specs []Spec
	for _, name := range names {
		if arg, ok := strings.CutPrefix(name, TracePrefix); ok {
			s, err := traceSpec(arg, p)
			if err != nil {
				return nil, err
			}
			specs = append(specs, s)
			continue
		}
		s, err := DefaultSpec(name)
		if err != nil {
			return nil, fmt.Errorf("--workload: %w", err)
		}
		given := func(flag string) bool { return s.Preset == "" || p.Explicit == nil || p.Explicit(flag) }
		s.Seed = p.Seed
		if given("keys") {
			s.Keys = p.Keys
		}
		if given("ops") {
			s.Ops = p.Ops
		} else if s.Preset != "" && given("keys") {
			s.Ops = 4 * s.Keys // the preset's proportion
		}
		if s.Ops == 0 {
			s.Ops = s.Keys
		}
		for flag, set := range map[string]func(){
			"hot-keys": func() { s.HotKeys = p.HotKeys }, "hot-access": func() { s.HotAccess = p.HotAccess },
			"zipf": func() { s.ZipfS = p.ZipfS }, "read-ratio": func() { s.ReadRatio = p.ReadRatio },
			"capacity":      func() { s.Capacity = p.Capacity },
			"latency-every": func() { s.LatencyEvery = p.LatencyEvery },
		} {
			if given(flag) {
				set()
			}
		}
		if p.ValueSize != "" && given("value-size") {
			if s.ValueMin, s.ValueMax, err = ParseValueSize(p.ValueSize); err != nil {
				return nil, err
			}
			// "0-1048576" asks for sizes from zero; a sized value cannot be
			// shorter than its key index and check.
			if s.ValueMax > 0 && s.ValueMin < minSizedValue && s.ValueMax >= minSizedValue {
				s.ValueMin = minSizedValue
			}
		}
		if err := s.Validate(); err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("--workload selects no workload (valid: %s)", strings.Join(Names(), ", "))
	}
	return specs, nil
}

// traceSpec is the spec of workload "trace:ARG": get-or-set's defaults,
// the trace's source, and the seed and capacity of p. The flags that shape
// a generated key space (--keys, --ops, --value-size, the distribution's)
// do not apply: the trace gives its keys, requests and sizes.
func traceSpec(arg string, p Params) (Spec, error) {
	s, err := DefaultSpec(GetOrSet + "/" + Uniform)
	if err != nil {
		return s, err
	}
	s.Scenario, s.Dist = Trace, ""
	s.Keys, s.Ops, s.ValueMin, s.ValueMax = 0, 0, 0, 0
	s.Seed, s.Capacity = p.Seed, p.Capacity
	if p.ResolveTrace != nil {
		s.TraceSource = p.ResolveTrace(arg)
	} else {
		f, path := trace.ParseSpec(arg)
		s.TraceSource = trace.Source{Path: path, Format: f}
	}
	if err := s.Validate(); err != nil {
		return s, err
	}
	// The file is read only once the run has started (generateTrace),
	// after the machine is measured: a missing or unreadable one is
	// refused here, with the other flags.
	if err := s.TraceSource.Check(); err != nil {
		return s, fmt.Errorf("--workload %s%s: %w", TracePrefix, arg, err)
	}
	return s, nil
}
