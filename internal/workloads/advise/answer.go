package advise

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/hitratio"
)

// Answer is what the figures say.
type Answer struct {
	// Verdict is the first line of the output.
	Verdict string `json:"verdict"`
	// Winner is the adapter with the lowest time per request with
	// misses; Tied lists it with those the repetitions do not tell apart
	// from it (empty when it stands alone).
	Winner string   `json:"winner,omitempty"`
	Tied   []string `json:"tied,omitempty"`
	// Rows are the adapters: ranked ones first, by time per request.
	Rows []Row `json:"rows"`
	// Reasons has one line per adapter flagged or left out, and per stage
	// left out.
	Reasons []string `json:"reasons,omitempty"`
	// Mixed is the line on the mixed pass, "" when it did not run.
	Mixed string `json:"mixed,omitempty"`
	// OPT is the hit ratio of Belady's optimal policy at the capacity, for
	// a trace replayed in the hit-ratio lab (-1 otherwise).
	OPT float64 `json:"opt_hit_ratio"`
	// Commands reproduce each figure.
	Commands []string `json:"commands"`
}

// Row is one adapter's figures; a figure not measured is -1.
type Row struct {
	Adapter string `json:"adapter"`
	// Rank is "1", "2", "≈1" (not told apart from rank 1), or "" when the
	// adapter is not ranked (flagged, unbounded, failed).
	Rank string `json:"rank,omitempty"`
	// TimePerRequest is ns/op + miss ratio × the miss penalty of each
	// get-or-set repetition; its mean and sd.
	TimePerRequest   []float64 `json:"time_per_request_ns"`
	TimePerRequestNs float64   `json:"time_per_request_mean_ns"`
	TimePerRequestSD float64   `json:"time_per_request_sd_ns"`
	NsPerOp          float64   `json:"get_or_set_ns_per_op"`
	HitRatio         float64   `json:"hit_ratio"`
	// LabHitRatio is the hit-ratio lab's object hit ratio of a trace
	// (-1 for a synthetic pattern or when not replayed).
	LabHitRatio   float64  `json:"lab_hit_ratio"`
	LookupP99Ns   float64  `json:"lookup_p99_ns"`
	InsertNs      float64  `json:"insert_ns"`
	MixedNs       float64  `json:"mixed_ns"`
	BytesPerEntry float64  `json:"rss_bytes_per_entry"`
	GCSeconds     float64  `json:"forced_gc_seconds"`
	HeldRatio     float64  `json:"held_of_budget"`
	Held          string   `json:"held"`
	Unbounded     bool     `json:"unbounded,omitempty"`
	Flags         []string `json:"flags,omitempty"`
	ranked        bool
}

func meanOr(m *report.Measurement, metric report.Metric) float64 {
	if m == nil {
		return -1
	}
	s := m.Stat(metric)
	if s.N == 0 {
		return -1
	}
	return s.Mean
}

func find(run *report.Result, adapter, workload string, phase report.Phase) *report.Measurement {
	if run == nil {
		return nil
	}
	for i := range run.Measurements {
		m := &run.Measurements[i]
		if m.Adapter == adapter && m.Workload == workload && m.Phase == phase {
			return m
		}
	}
	return nil
}

// analyse turns the measurements of res into the answer.
func analyse(res *Result) Answer {
	q := res.Question
	var a Answer
	penalty := float64(q.MissPenalty.Nanoseconds())
	gosName, ilName, mixName := "", "", ""
	for _, w := range q.Workloads {
		switch {
		case strings.HasPrefix(w, workloads.GetOrSet+"/") || strings.HasPrefix(w, workloads.TracePrefix):
			gosName = w
		case w == workloads.InsertLookup:
			ilName = w
		case strings.HasPrefix(w, workloads.Mixed+"/"):
			mixName = w
		}
	}
	failed := map[string]string{}
	if res.Run != nil {
		for _, e := range res.Run.Errors {
			if _, ok := failed[e.Adapter]; !ok {
				failed[e.Adapter] = e.String()
			}
		}
	}
	a.OPT = -1
	lab := map[string]float64{}
	if res.Lab != nil {
		for _, tr := range res.Lab.Traces {
			for _, row := range tr.Rows {
				if !row.Ran() {
					continue
				}
				if row.Adapter == hitratio.OPTName {
					a.OPT = row.HitRatio
				} else {
					lab[row.Adapter] = row.HitRatio
				}
			}
		}
	}
	gcBy := map[string]*report.GCPause{}
	if res.GC != nil {
		for i := range res.GC.GCPause {
			g := &res.GC.GCPause[i]
			gcBy[g.Adapter] = g
		}
	}
	for _, name := range q.Adapters {
		r := Row{Adapter: name, TimePerRequestNs: -1, TimePerRequestSD: -1, NsPerOp: -1, HitRatio: -1,
			LabHitRatio: -1, LookupP99Ns: -1, InsertNs: -1, MixedNs: -1, BytesPerEntry: -1, GCSeconds: -1, HeldRatio: -1, Held: "–"}
		gos := find(res.Run, name, gosName, report.PhaseGetOrSet)
		flagged := false
		if gos != nil {
			for _, s := range gos.Samples {
				if s.HitRatio >= 0 {
					r.TimePerRequest = append(r.TimePerRequest, s.NsPerOp+(1-s.HitRatio)*penalty)
				}
			}
			st := report.Summarize(r.TimePerRequest)
			if st.N > 0 {
				r.TimePerRequestNs, r.TimePerRequestSD = st.Mean, st.SD
			}
			r.NsPerOp = meanOr(gos, report.MetricNsPerOp)
			if h, ok := gos.HitRatio(); ok {
				r.HitRatio = h
			}
			var held *report.Held
			for _, s := range gos.Samples {
				if s.Held != nil && (held == nil || s.Held.Ratio() > held.Ratio()) {
					held = s.Held
				}
			}
			if held != nil && held.Basis != "" {
				r.HeldRatio = held.Ratio()
				r.Unbounded = held.Unbounded
				r.Held = fmt.Sprintf("%.0f%%", 100*held.Ratio())
				if held.Unbounded {
					r.Held = "unbounded"
				}
			}
			for _, f := range gos.Flags {
				r.Flags = append(r.Flags, f.String())
				flagged = true
				switch f.Name {
				case report.FlagUnbounded:
					a.Reasons = append(a.Reasons, name+": unbounded, holds everything, not comparable on hit ratio")
				case report.FlagOverBudget:
					a.Reasons = append(a.Reasons, fmt.Sprintf("%s: held %d%% of its budget, not comparable on hit ratio", name, f.Count))
				default:
					a.Reasons = append(a.Reasons, name+": "+strings.TrimPrefix(f.Text(), "⚠ ")+" in get-or-set")
				}
			}
		}
		if il := find(res.Run, name, ilName, report.PhaseLookup); il != nil {
			r.LookupP99Ns = meanOr(il, report.MetricP99)
			for _, f := range il.Flags {
				r.Flags = append(r.Flags, f.String())
				a.Reasons = append(a.Reasons, name+": "+strings.TrimPrefix(f.Text(), "⚠ ")+" in lookups")
			}
		}
		if ins := find(res.Run, name, ilName, report.PhaseInsert); ins != nil {
			r.InsertNs = meanOr(ins, report.MetricNsPerOp)
		}
		if mx := find(res.Run, name, mixName, report.PhaseMixed); mx != nil {
			r.MixedNs = meanOr(mx, report.MetricNsPerOp)
			for _, f := range mx.Flags {
				r.Flags = append(r.Flags, f.String())
				a.Reasons = append(a.Reasons, name+": "+strings.TrimPrefix(f.Text(), "⚠ ")+" in the mixed pass")
			}
		}
		if h, ok := lab[name]; ok {
			r.LabHitRatio = h
		}
		if g := gcBy[name]; g != nil {
			if g.Error != "" {
				a.Reasons = append(a.Reasons, name+": gc-pause child failed: "+g.Error)
			} else {
				r.BytesPerEntry, r.GCSeconds = notNaN(g.RSSBytesPerEntry), notNaN(g.ForcedGCSeconds)
			}
		}
		if why, ok := failed[name]; ok {
			a.Reasons = append(a.Reasons, "failed: "+why)
			flagged = true
		}
		if gos == nil && failed[name] == "" {
			a.Reasons = append(a.Reasons, name+": not measured in get-or-set (not ranked)")
		}
		r.ranked = !flagged && len(r.TimePerRequest) > 0
		a.Rows = append(a.Rows, r)
	}
	sort.SliceStable(a.Rows, func(i, j int) bool {
		ri, rj := a.Rows[i], a.Rows[j]
		if ri.ranked != rj.ranked {
			return ri.ranked
		}
		if ri.ranked {
			return ri.TimePerRequestNs < rj.TimePerRequestNs
		}
		return ri.Adapter < rj.Adapter
	})
	reps := 0
	for _, r := range a.Rows {
		if r.ranked {
			reps = max(reps, len(r.TimePerRequest))
		}
	}
	rankRows(a.Rows)
	for _, st := range res.Plan.Stages {
		if st.Why != "" {
			a.Reasons = append(a.Reasons, st.Name+": "+st.Why)
		}
	}
	a.Verdict, a.Winner, a.Tied = verdict(q, a.Rows, reps)
	if a.OPT >= 0 {
		best := ""
		for _, r := range a.Rows {
			if r.ranked && r.Adapter == a.Winner && r.LabHitRatio >= 0 {
				best = fmt.Sprintf(", %s %s", r.Adapter, report.FormatPercent(r.LabHitRatio))
			}
		}
		a.Verdict += fmt.Sprintf(" In the hit-ratio lab at this size, Belady's OPT hits %s%s.", report.FormatPercent(a.OPT), best)
	}
	a.Mixed = mixedLine(q, a.Rows)
	a.Commands = commands(res)
	return a
}

// rankRows ranks the ranked rows (sorted by time per request): a row
// the Mann-Whitney test does not tell apart from the row holding the
// current rank shares it ("≈N"), as the report package's tables rank.
func rankRows(rows []Row) {
	rank := 0
	var anchor []float64
	for i := range rows {
		r := &rows[i]
		if !r.ranked {
			continue
		}
		if anchor != nil && !(len(anchor) >= MinReps && len(r.TimePerRequest) >= MinReps && report.Separated(anchor, r.TimePerRequest)) {
			r.Rank = "≈" + strconv.Itoa(rank)
			continue
		}
		rank, anchor = i+1, r.TimePerRequest
		r.Rank = strconv.Itoa(rank)
	}
}

// describe is the question in a few words: "1,000,000 keys of 1 KiB,
// zipf 1.1, a cache of 100,000 entries (10%), 2 CPUs, 100µs per miss".
func describe(q Question) string {
	value := report.FormatBytes(q.MeanValue)
	if q.ValueMin != q.ValueMax {
		value = report.FormatBytes(float64(q.ValueMin)) + "–" + report.FormatBytes(float64(q.ValueMax))
	}
	keys := report.FormatInt(int64(q.Keys)) + " keys of " + value
	if q.Access.Trace != "" {
		keys = fmt.Sprintf("trace %s (%s objects of %s on average, %s requests)", q.Access.Trace,
			report.FormatInt(int64(q.Keys)), report.FormatBytes(q.MeanValue), report.FormatInt(int64(q.Ops)))
	} else {
		keys += ", " + q.Access.String()
	}
	cpus := "CPUs"
	if q.CPU == 1 {
		cpus = "CPU"
	}
	return fmt.Sprintf("%s, a cache of %s entries (%s%%), %d %s, %v per miss",
		keys, report.FormatInt(int64(q.Entries)), strconv.FormatFloat(100*q.Fraction, 'g', 3, 64), q.CPU, cpus, q.MissPenalty)
}

// verdict is the first line: the winner, or the tie, with the figures
// of the next adapters.
func verdict(q Question, rows []Row, reps int) (line, winner string, tied []string) {
	head := "For " + describe(q) + ": "
	var ranked []Row
	for _, r := range rows {
		if r.ranked {
			ranked = append(ranked, r)
		}
	}
	if len(ranked) == 0 {
		return head + "no adapter could be ranked (see the reasons below).", "", nil
	}
	per := func(r Row) string { return report.FormatNs(r.TimePerRequestNs) }
	winner = ranked[0].Adapter
	var rest []string
	for _, r := range ranked[1:] {
		if strings.HasPrefix(r.Rank, "≈") && r.Rank == "≈1" {
			tied = append(tied, r.Adapter)
			continue
		}
		if len(rest) < 3 {
			rest = append(rest, r.Adapter+" "+per(r))
		}
	}
	others := ""
	if len(rest) > 0 {
		others = " (" + strings.Join(rest, ", ") + ")"
	}
	if len(ranked) == 1 {
		return head + fmt.Sprintf("%s, at %s per request with misses, the only adapter ranked.", winner, per(ranked[0])), winner, nil
	}
	if len(tied) == 0 {
		return head + fmt.Sprintf("%s, at %s per request with misses%s.", winner, per(ranked[0]), others), winner, nil
	}
	names := append([]string{winner}, tied...)
	if reps < MinReps {
		var next []string
		for _, r := range ranked[1:min(len(ranked), 4)] {
			next = append(next, r.Adapter+" "+per(r))
		}
		return head + fmt.Sprintf("%s leads, at %s per request with misses (%s), but with %s, fewer than the %d a rank needs, every rank is a tie.",
			winner, per(ranked[0]), strings.Join(next, ", "), plural(reps, "repetition"), MinReps), winner, names
	}
	var figs []string
	for _, r := range ranked[:len(names)] {
		figs = append(figs, per(r))
	}
	why := fmt.Sprintf("the Mann-Whitney test over %d repetitions does not tell them apart", reps)
	line = head + fmt.Sprintf("tied: %s, at %s per request with misses (%s)", joinAnd(names), joinAnd(figs), why)
	if len(rest) > 0 {
		line += "; then " + strings.Join(rest, ", ")
	}
	return line + ".", winner, names
}

// plural is "1 repetition", "2 repetitions".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// mixedLine gives the mixed pass, fastest first.
func mixedLine(q Question, rows []Row) string {
	var with []Row
	for _, r := range rows {
		if r.MixedNs >= 0 {
			with = append(with, r)
		}
	}
	if len(with) == 0 {
		return ""
	}
	slices.SortStableFunc(with, func(a, b Row) int {
		switch {
		case a.MixedNs < b.MixedNs:
			return -1
		case a.MixedNs > b.MixedNs:
			return 1
		}
		return 0
	})
	var parts []string
	for _, r := range with {
		parts = append(parts, r.Adapter+" "+report.FormatNs(r.MixedNs))
	}
	return fmt.Sprintf("Mixed pass at %g%% reads, every key written first (ns/op, fastest first, one repetition): %s.",
		100*q.ReadRatio, strings.Join(parts, ", "))
}

// flagDuration writes d as a duration flag, in ASCII ("100us").
func flagDuration(d time.Duration) string {
	return strings.ReplaceAll(d.String(), "µ", "u")
}

// fraction writes a capacity share as run's --capacity reads it.
func fraction(f float64) string {
	if f >= 1 {
		return "100%"
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

// commands are the cachebench command lines that reproduce the figures.
func commands(res *Result) []string {
	q := res.Question
	adapters := strings.Join(q.Adapters, ",")
	seed := strconv.FormatUint(q.Seed, 10)
	reps := 1
	if st := res.Plan.stage("get-or-set"); st != nil {
		reps = max(st.Ran, 1)
	} else if st := res.Plan.stage("trace"); st != nil {
		reps = max(st.Ran, 1)
	}
	value := strconv.Itoa(q.ValueMin)
	if q.ValueMax != q.ValueMin {
		value += "-" + strconv.Itoa(q.ValueMax)
	}
	dist := ""
	switch q.Access.Dist {
	case workloads.Zipf:
		dist = " --zipf " + strconv.FormatFloat(q.Access.ZipfS, 'g', -1, 64)
	case workloads.HotCold:
		dist = fmt.Sprintf(" --hot-keys %g --hot-access %g", q.Access.HotKeys, q.Access.HotAccess)
	}
	common := fmt.Sprintf(" --cpu %d --adapters %s --seed %s --no-floor", q.CPU, adapters, seed)
	var out []string
	if q.Access.Trace != "" {
		out = append(out,
			fmt.Sprintf("cachebench run --workload trace:%s --capacity %s --miss-penalty %v --count %d%s", q.Access.Trace, fraction(q.Fraction), flagDuration(q.MissPenalty), reps, common),
			fmt.Sprintf("cachebench hitratio --trace %s --capacity %s --adapters %s", q.Access.Trace, fraction(q.Fraction), adapters))
		value = strconv.Itoa(min(max(int(q.MeanValue+0.5), 16), 1<<20))
	} else {
		out = append(out, fmt.Sprintf("cachebench run --workload get-or-set/%s --keys %d --value-size %s --capacity %s%s --miss-penalty %v --count %d%s",
			q.Access.Dist, q.Keys, value, fraction(q.Fraction), dist, flagDuration(q.MissPenalty), reps, common))
	}
	if st := res.Plan.stage("insert-lookup"); st != nil && st.Ran > 0 {
		out = append(out, fmt.Sprintf("cachebench run --workload insert-lookup --keys %d --value-size %s --count %d%s", q.Keys, value, st.Ran, common))
	}
	if st := res.Plan.stage("mixed"); st != nil && st.Ran > 0 {
		out = append(out, fmt.Sprintf("cachebench run --workload mixed/%s --keys %d --value-size %s --read-ratio %g%s --count %d%s",
			q.Access.Dist, q.Keys, value, q.ReadRatio, dist, st.Ran, common))
	}
	if st := res.Plan.stage("gc-pause"); st != nil && st.Ran > 0 {
		c := gcConfig(q.Keys, int64(q.MeanValue), q.Seed, q.Adapters)
		out = append(out, fmt.Sprintf("cachebench gc-pause --entries %d --value-size %d --gogc %d --count 1 --verify %d --gc-reads %d --gc-read-time %v --seed %s --adapters %s",
			c.Entries, c.ValueSize, c.GOGC, c.Verify, c.GCReads, flagDuration(c.GCReadTime), seed, adapters))
	}
	return out
}

// notNaN keeps JSON encodable: a NaN figure becomes -1.
func notNaN(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return -1
	}
	return v
}
