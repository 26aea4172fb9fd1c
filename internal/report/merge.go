package report

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Merge joins runs of the same suite made in separate processes into one
// result whose measurements hold every run's samples, in the order given.
//
// Repetitions inside one process share that process's memory layout (where
// the allocator put each cache, the map's hash seed), which moves some
// lookup times by tens of percent from one process to the next; a
// comparison that takes all its samples from one process per side mistakes
// that for a change. Merging several processes per side puts the
// process-to-process spread into the samples, where the statistics see it.
//
// The results must be run results from one CPU model, and every result
// must hold the same measurements (same adapter, workload, phase, procs and
// keys) so that sample i of every adapter still comes from the same
// repetition, which --normalize relies on. The environment, configuration
// and start time are the first result's (Config gains
// merged_runs, the number of results); Duration is the sum; Errors,
// Skipped and Flags are the union.
func Merge(results ...*Result) (*Result, error) {
	if len(results) == 0 {
		return nil, errors.New("merge: no results")
	}
	first := results[0]
	if first.Kind != KindRun {
		return nil, fmt.Errorf("merge: result 1 is a %q result; only %q results merge", first.Kind, KindRun)
	}
	out := *first
	out.Measurements = make([]Measurement, len(first.Measurements))
	index := make(map[string]int, len(first.Measurements))
	for i, id := range measurementIDs(first) {
		m := first.Measurements[i]
		m.Samples = slices.Clone(m.Samples)
		m.Flags = slices.Clone(m.Flags)
		out.Measurements[i] = m
		index[id] = i
	}
	out.Config = maps.Clone(first.Config)
	if out.Config == nil {
		out.Config = map[string]string{}
	}
	out.Config["merged_runs"] = strconv.Itoa(len(results))
	out.Errors = slices.Clone(first.Errors)
	out.Skipped = slices.Clone(first.Skipped)
	for n, r := range results[1:] {
		pos := n + 2
		switch {
		case r.Kind != KindRun:
			return nil, fmt.Errorf("merge: result %d is a %q result; only %q results merge", pos, r.Kind, KindRun)
		case r.Env.CPUModel != first.Env.CPUModel:
			return nil, fmt.Errorf("merge: result %d was measured on %q, result 1 on %q", pos, r.Env.CPUModel, first.Env.CPUModel)
		case len(r.Measurements) != len(first.Measurements):
			return nil, fmt.Errorf("merge: result %d has %d measurements, result 1 has %d: not runs of the same suite",
				pos, len(r.Measurements), len(first.Measurements))
		}
		for j, id := range measurementIDs(r) {
			m := r.Measurements[j]
			i, ok := index[id]
			if !ok {
				return nil, fmt.Errorf("merge: result %d measures %s, result 1 does not: not runs of the same suite", pos, id)
			}
			dst := &out.Measurements[i]
			dst.Samples = append(dst.Samples, m.Samples...)
			dst.Flags = union(dst.Flags, m.Flags)
		}
		out.Duration += r.Duration
		out.Interrupted = out.Interrupted || r.Interrupted
		out.Errors = union(out.Errors, r.Errors)
		out.Skipped = union(out.Skipped, r.Skipped)
	}
	return &out, nil
}

// measurementIDs names each measurement of r by what it measures; a
// repeated one (a single-goroutine build measured once per --cpu value)
// gets its occurrence number.
func measurementIDs(r *Result) []string {
	ids := make([]string, len(r.Measurements))
	seen := make(map[string]int, len(r.Measurements))
	for i, m := range r.Measurements {
		id := fmt.Sprintf("%s %s %s procs=%d keys=%d", m.Adapter, m.Workload, m.Phase, m.Procs, m.Keys)
		if m.Rate > 0 {
			id += fmt.Sprintf(" rate=%g %s", m.Rate, m.Arrivals)
		}
		if n := seen[id]; n > 0 {
			seen[id] = n + 1
			id = fmt.Sprintf("%s #%d", id, n+1)
		} else {
			seen[id] = 1
		}
		ids[i] = id
	}
	return ids
}

// union appends to a the elements of b it does not hold yet.
func union[T comparable](a, b []T) []T {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}
