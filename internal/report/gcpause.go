package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// GCReadPhase describes how a gc-pause child measured Get latency inside
// and outside collections: a reader goroutine timed every Get while the
// child alternated outside windows and forced collections.
type GCReadPhase struct {
	// Target is the number of Gets that had to fall inside collections
	// (and outside them) for the phase to end before its time bound.
	Target int `json:"target,omitempty"`
	// Cycles is the number of forced collections the reader ran across.
	Cycles int `json:"cycles,omitempty"`
	// Seconds is the wall time of the phase.
	Seconds float64 `json:"seconds,omitempty"`
	// BackgroundCycles counts the collections the runtime started by
	// itself during the phase (an adapter whose Get allocates); the Gets
	// they overlapped count as outside.
	BackgroundCycles uint64 `json:"background_cycles,omitempty"`
	// TimeBound is true when the time bound, not Target, ended the phase.
	TimeBound bool `json:"time_bound,omitempty"`
}

// gcGroup is the gc-pause entries of one configuration (entries, value
// size, GOGC), one slice of repetitions per adapter.
type gcGroup struct {
	entries, valueSize, gogc int
	adapters                 []string
	byAdapter                map[string][]GCPause
}

func groupGCPause(ps []GCPause) []*gcGroup {
	type cfg struct{ entries, valueSize, gogc int }
	groups := map[cfg]*gcGroup{}
	var order []cfg
	for _, p := range ps {
		k := cfg{p.Entries, p.ValueSize, p.GOGC}
		g, ok := groups[k]
		if !ok {
			g = &gcGroup{entries: p.Entries, valueSize: p.ValueSize, gogc: p.GOGC, byAdapter: map[string][]GCPause{}}
			groups[k] = g
			order = append(order, k)
		}
		if _, ok := g.byAdapter[p.Adapter]; !ok {
			g.adapters = append(g.adapters, p.Adapter)
		}
		g.byAdapter[p.Adapter] = append(g.byAdapter[p.Adapter], p)
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.entries != b.entries {
			return a.entries < b.entries
		}
		if a.valueSize != b.valueSize {
			return a.valueSize < b.valueSize
		}
		return a.gogc < b.gogc
	})
	out := make([]*gcGroup, len(order))
	for i, k := range order {
		out[i] = groups[k]
	}
	return out
}

// gcRow summarises an adapter's repetitions: means of the figures, the
// maximum of the maximum pause, sums of the verification counts.
type gcRow struct {
	adapter                  string
	reps                     int // repetitions with figures
	fill, forced             Summary
	fillCPU, forcedCPU       float64
	pauses                   float64
	pauseMax, pauseTotal     float64
	heapObjects, heapInUse   float64
	peakRSS, rssPerEntry     float64
	p99, p999                float64
	verified, missing, wrong int64
	errs                     []string
}

func summarizeGC(adapter string, ps []GCPause) *gcRow {
	r := &gcRow{adapter: adapter}
	var fill, forced []float64
	var acc [10]float64
	for _, p := range ps {
		if p.Error != "" {
			r.errs = append(r.errs, p.Error)
			continue
		}
		r.reps++
		fill = append(fill, p.FillSeconds*1e9)
		forced = append(forced, p.ForcedGCSeconds*1e9)
		for i, v := range []float64{p.FillGCCPUSeconds, p.ForcedGCCPUSecond, float64(p.PauseCount), p.PauseTotalSeconds,
			float64(p.HeapObjects), float64(p.HeapInUseBytes), float64(p.PeakRSSBytes), p.RSSBytesPerEntry,
			p.GetDuringGC.P99, p.GetDuringGC.P999} {
			acc[i] += v
		}
		r.pauseMax = math.Max(r.pauseMax, p.PauseMaxSeconds)
		r.verified += p.Verified
		r.missing += p.Missing
		r.wrong += p.Wrong
	}
	r.fill, r.forced = Summarize(fill), Summarize(forced)
	if r.reps > 0 {
		n := float64(r.reps)
		r.fillCPU, r.forcedCPU, r.pauses, r.pauseTotal = acc[0]/n, acc[1]/n, acc[2]/n, acc[3]/n
		r.heapObjects, r.heapInUse, r.peakRSS, r.rssPerEntry = acc[4]/n, acc[5]/n, acc[6]/n, acc[7]/n
		r.p99, r.p999 = acc[8]/n, acc[9]/n
	}
	return r
}

func (r *gcRow) flagged() bool { return r.wrong > 0 || len(r.errs) > 0 || r.reps == 0 }

func (r *gcRow) name() string {
	var flags []string
	if r.wrong > 0 {
		flags = append(flags, fmt.Sprintf("⚠ wrong values: %d", r.wrong))
	}
	if len(r.errs) > 0 {
		flags = append(flags, fmt.Sprintf("⚠ failed: %d", len(r.errs)))
	}
	if len(flags) == 0 {
		return r.adapter
	}
	return r.adapter + " " + strings.Join(flags, ", ")
}

func addGCPause(d *document, level int, res *Result) {
	for _, g := range groupGCPause(res.GCPause) {
		gogc := "default"
		if g.gogc != 0 {
			gogc = fmt.Sprint(g.gogc)
		}
		d.heading(level, "%s entries · %d-byte values · GOGC=%s", FormatInt(int64(g.entries)), g.valueSize, gogc)
		var rows []*gcRow
		for _, a := range g.adapters {
			rows = append(rows, summarizeGC(a, g.byAdapter[a]))
		}
		// Cheapest full GC first; failed or wrong rows last, unranked.
		sort.SliceStable(rows, func(i, j int) bool {
			fi, fj := rows[i].flagged(), rows[j].flagged()
			if fi != fj {
				return !fi
			}
			if fi || rows[i].forced.Mean == rows[j].forced.Mean {
				return rows[i].adapter < rows[j].adapter
			}
			return rows[i].forced.Mean < rows[j].forced.Mean
		})
		t := NewFigureTable("Implementation", "Fill", "Forced GC wall", "GC CPU fill / forced", "STW pauses n / max / total",
			"Heap objects", "Heap allocated", "Peak RSS", "RSS B/entry", "Get p99 / p99.9 during GC", "Verified / missing / wrong")
		var failures []string
		for _, r := range rows {
			for _, e := range r.errs {
				failures = append(failures, "⚠ "+r.adapter+": "+e)
			}
			if r.reps == 0 {
				t.Add(r.name(), dash, dash, dash, dash, dash, dash, dash, dash, dash, dash)
				continue
			}
			t.Add(r.name(),
				fmtNsSD(r.fill),
				fmtNsSD(r.forced),
				fmtNs(r.fillCPU*1e9)+" / "+fmtNs(r.forcedCPU*1e9),
				FormatInt(int64(math.Round(r.pauses)))+" / "+fmtNs(r.pauseMax*1e9)+" / "+fmtNs(r.pauseTotal*1e9),
				fmtSI(r.heapObjects),
				FormatBytes(r.heapInUse),
				FormatBytes(r.peakRSS),
				fmtSmall(r.rssPerEntry),
				fmtNs(r.p99)+" / "+fmtNs(r.p999),
				FormatInt(r.verified)+" / "+FormatInt(r.missing)+" / "+FormatInt(r.wrong))
		}
		d.para("Each adapter filled in its own process; cheapest forced GC first. Figures are means over the repetitions (max pause: the largest); GC CPU from runtime/metrics; RSS includes off-heap memory. " +
			"Heap allocated: the Go heap's spans in use after the forced collection (runtime/metrics, as MemStats.HeapInuse), whether or not their pages were ever written; " +
			"the kernel backs only written pages, so a cache that allocates its whole buffer up front and fills part of it (freecache) shows more heap allocated than RSS.")
		d.table(t)
		d.para(strings.Join(failures, " "))
		addGCReads(d, rows, g)
	}
}

// addGCReads adds the table of Get latency inside and outside forced
// collections, side by side, for results that measured both (older
// results timed Gets during one collection only).
func addGCReads(d *document, rows []*gcRow, g *gcGroup) {
	t := NewFigureTable("Implementation", "Forced cycles", "Gets in GC / outside", "In GC p50 / p99 / p99.9", "Outside GC p50 / p99 / p99.9", "p99 in / out")
	var bounded, background, fewPerCycle []string
	for _, r := range rows {
		var in, out [3]float64
		var nIn, nOut, cycles int64
		reps := 0
		for _, p := range g.byAdapter[r.adapter] {
			if p.Error != "" || p.GetOutsideGC.Samples == 0 {
				continue
			}
			reps++
			nIn, nOut, cycles = nIn+p.GetDuringGC.Samples, nOut+p.GetOutsideGC.Samples, cycles+int64(p.GCReads.Cycles)
			for i, v := range [3]float64{p.GetDuringGC.P50, p.GetDuringGC.P99, p.GetDuringGC.P999} {
				in[i] += v
			}
			for i, v := range [3]float64{p.GetOutsideGC.P50, p.GetOutsideGC.P99, p.GetOutsideGC.P999} {
				out[i] += v
			}
			if p.GCReads.BackgroundCycles > 0 {
				background = append(background, fmt.Sprintf("%s (repetition %d: %d)", r.adapter, p.Repetition+1, p.GCReads.BackgroundCycles))
			}
			if p.GCReads.TimeBound {
				bounded = append(bounded, fmt.Sprintf("%s (repetition %d: %s Gets in %d cycles, %.1f s)",
					r.adapter, p.Repetition+1, FormatInt(p.GetDuringGC.Samples), p.GCReads.Cycles, p.GCReads.Seconds))
			}
		}
		if reps == 0 {
			continue
		}
		if cycles > 0 && nIn < minGetsPerCycle*cycles {
			fewPerCycle = append(fewPerCycle, fmt.Sprintf("%s (%s a cycle)", r.adapter, FormatInt(nIn/cycles)))
		}
		n := float64(reps)
		ratio := dash
		if out[1] > 0 {
			ratio = fmt.Sprintf("%.2f×", in[1]/out[1])
		}
		t.Add(r.adapter, FormatInt(cycles), FormatInt(nIn)+" / "+FormatInt(nOut),
			fmtNs(in[0]/n)+" / "+fmtNs(in[1]/n)+" / "+fmtNs(in[2]/n),
			fmtNs(out[0]/n)+" / "+fmtNs(out[1]/n)+" / "+fmtNs(out[2]/n), ratio)
	}
	if len(t.Rows) == 0 {
		return
	}
	d.para("Get latency from one reader goroutine, every Get timed, across repeated forced collections: \"in GC\" Gets overlapped a runtime.GC call (mark and sweep), \"outside\" ones did not. Percentiles are means over the repetitions; counts and cycles are totals.")
	d.table(t)
	if len(bounded) > 0 {
		d.para("⚠ The time bound ended the reads before the target number of in-GC Gets for: " + strings.Join(bounded, "; ") + ".")
	}
	if len(background) > 0 {
		d.para("⚠ The runtime started collections of its own during the reads (their Gets count as outside) for: " + strings.Join(background, "; ") + ".")
	}
	if len(fewPerCycle) > 0 {
		d.para("In-GC p99 over few Gets a cycle: " + strings.Join(fewPerCycle, ", ") + ". Where a collection overlaps under " +
			FormatInt(minGetsPerCycle) + " Gets, 1% of them is under 10 a cycle, so the few slow Gets a cycle brings whatever the cache holds " +
			"(such as those that meet its stop-the-world phases) can make its p99 in one run and not in the next: " +
			"compare these caches by p99.9 and by the forced collection's wall and CPU time.")
	}
}

// minGetsPerCycle is the number of in-GC Gets per forced collection below
// which the reads table says that the in-GC p99 rests on a cycle's few
// slow Gets: on the 2-core dev machines the GC-free caches' collections
// (under a millisecond) overlapped 300-700 Gets each, and their in-GC p99
// read 2 us in one run and 59 us in the next; collections of 4 ms and
// more overlapped thousands, and the same slow Gets showed at p99.9.
const minGetsPerCycle = 1000
