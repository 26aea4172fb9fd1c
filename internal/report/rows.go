package report

import (
	"math"
	"sort"
	"strings"
)

// rowKey identifies one table row: an adapter in a workload at the
// GOMAXPROCS value of its run.
type rowKey struct {
	workload string
	procs    int
	adapter  string
}

// row gathers an adapter's phases in one workload and GOMAXPROCS value.
type row struct {
	adapter string
	phases  map[Phase]*Measurement
	order   []Phase // phases in first-seen order
}

func (r *row) flags() []Flag {
	var out []Flag
	seen := map[Flag]bool{}
	for _, p := range r.order {
		for _, f := range r.phases[p].Flags {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// name is the adapter name with its flags, so a problem is visible on
// the row itself.
func (r *row) name(phases ...Phase) string {
	var flags []string
	for _, f := range r.flags() {
		flags = append(flags, f.Text())
	}
	if len(phases) > 0 {
		flags = nil
		for _, p := range phases {
			if m := r.phases[p]; m != nil {
				for _, f := range m.Flags {
					flags = append(flags, f.Text())
				}
			}
		}
	}
	if len(flags) == 0 {
		return r.adapter
	}
	return r.adapter + " " + strings.Join(flags, ", ")
}

func (r *row) flagged(phases ...Phase) bool {
	for _, p := range phases {
		if m := r.phases[p]; m != nil && len(m.Flags) > 0 {
			return true
		}
	}
	return false
}

// onlyUnbounded reports whether the one flag of the row in phases is
// FlagUnbounded: not a fault, but not ranked either.
func (r *row) onlyUnbounded(phases ...Phase) bool {
	seen := false
	for _, p := range phases {
		if m := r.phases[p]; m != nil {
			for _, f := range m.Flags {
				if f.Name != FlagUnbounded {
					return false
				}
				seen = true
			}
		}
	}
	return seen
}

// runProcs returns, for each measurement, the GOMAXPROCS value of the run
// it belongs to. Measurement.Procs is the parallelism of the phase
// itself, and a write-once store builds on one goroutine (and opens once)
// whatever the run's value; such insert and open phases belong to the
// run of the next read phase of the same adapter and workload, which the
// runner always records after them.
func runProcs(ms []Measurement) []int {
	out := make([]int, len(ms))
	pending := map[string][]int{}
	for i, m := range ms {
		out[i] = m.Procs
		k := m.Adapter + "\x00" + m.Workload
		if m.Phase == PhaseInsert || m.Phase == PhaseOpen {
			pending[k] = append(pending[k], i)
			continue
		}
		for _, j := range pending[k] {
			out[j] = m.Procs
		}
		delete(pending, k)
	}
	return out
}

// group is one table group: a workload at one GOMAXPROCS value.
type group struct {
	workload string
	procs    int
	keys     int
	rows     []*row
}

// groupRun arranges measurements into groups: workloads in first-seen
// order, GOMAXPROCS ascending within a workload, rows in first-seen order.
func groupRun(ms []Measurement) []*group {
	procs := runProcs(ms)
	var workloads []string
	byWorkload := map[string]map[int]*group{}
	rows := map[rowKey]*row{}
	for i := range ms {
		m := &ms[i]
		gs, ok := byWorkload[m.Workload]
		if !ok {
			gs = map[int]*group{}
			byWorkload[m.Workload] = gs
			workloads = append(workloads, m.Workload)
		}
		g, ok := gs[procs[i]]
		if !ok {
			g = &group{workload: m.Workload, procs: procs[i]}
			gs[procs[i]] = g
		}
		g.keys = max(g.keys, m.Keys)
		k := rowKey{m.Workload, procs[i], m.Adapter}
		r, ok := rows[k]
		if !ok {
			r = &row{adapter: m.Adapter, phases: map[Phase]*Measurement{}}
			rows[k] = r
			g.rows = append(g.rows, r)
		}
		if have, ok := r.phases[m.Phase]; ok {
			// The same phase twice (results merged by hand): pool
			// the samples rather than hide one of them.
			merged := *have
			merged.Samples = append(append([]Sample(nil), have.Samples...), m.Samples...)
			merged.Flags = append(append([]Flag(nil), have.Flags...), m.Flags...)
			r.phases[m.Phase] = &merged
			continue
		}
		r.phases[m.Phase] = m
		r.order = append(r.order, m.Phase)
	}
	var out []*group
	for _, w := range workloads {
		var ps []int
		for p := range byWorkload[w] {
			ps = append(ps, p)
		}
		sort.Ints(ps)
		for _, p := range ps {
			out = append(out, byWorkload[w][p])
		}
	}
	return out
}

// rankRows sorts rows by key ascending (NaN last; ties broken by the
// lookup or phase time, then the name), and puts flagged rows after all
// others, by name: a flagged figure is shown but not ranked.
func rankRows(rows []*row, key func(*row) float64, flagged func(*row) bool) []*row {
	speed := func(r *row) float64 {
		for _, p := range []Phase{PhaseLookup, PhaseMixed, PhaseGetOrSet, PhaseReadVector, PhaseLookupBatch, PhaseLookupCold} {
			if v := r.mean(p, MetricNsPerOp); !math.IsNaN(v) {
				return v
			}
		}
		return math.Inf(1)
	}
	out := append([]*row(nil), rows...)
	sort.SliceStable(out, func(i, j int) bool {
		fi, fj := flagged(out[i]), flagged(out[j])
		if fi != fj {
			return !fi
		}
		if fi {
			return out[i].adapter < out[j].adapter
		}
		ki, kj := key(out[i]), key(out[j])
		if math.IsNaN(ki) != math.IsNaN(kj) {
			return !math.IsNaN(ki)
		}
		if ki != kj {
			return ki < kj
		}
		if si, sj := speed(out[i]), speed(out[j]); si != sj {
			return si < sj
		}
		return out[i].adapter < out[j].adapter
	})
	return out
}

func (r *row) stat(phase Phase, metric Metric) Summary {
	if m := r.phases[phase]; m != nil {
		return m.Stat(metric)
	}
	return Summary{}
}

// mean returns the mean of metric in phase, or NaN when absent.
func (r *row) mean(phase Phase, metric Metric) float64 {
	s := r.stat(phase, metric)
	if s.N == 0 {
		return math.NaN()
	}
	return s.Mean
}

func (r *row) hitRatio(phase Phase) float64 {
	if m := r.phases[phase]; m != nil {
		if h, ok := m.HitRatio(); ok {
			return h
		}
	}
	return math.NaN()
}
