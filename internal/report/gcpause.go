package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

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
		d.heading(level, "%s entries · %d-byte values · GOGC=%s", fmtInt(int64(g.entries)), g.valueSize, gogc)
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
		t := newTable("Implementation", "Fill", "Forced GC wall", "GC CPU fill / forced", "STW pauses n / max / total",
			"Heap objects", "Heap in use", "Peak RSS", "RSS B/entry", "Get p99 / p99.9 during GC", "Verified / missing / wrong")
		var failures []string
		for _, r := range rows {
			for _, e := range r.errs {
				failures = append(failures, "⚠ "+r.adapter+": "+e)
			}
			if r.reps == 0 {
				t.add(r.name(), dash, dash, dash, dash, dash, dash, dash, dash, dash, dash)
				continue
			}
			t.add(r.name(),
				fmtNsSD(r.fill),
				fmtNsSD(r.forced),
				fmtNs(r.fillCPU*1e9)+" / "+fmtNs(r.forcedCPU*1e9),
				fmtInt(int64(math.Round(r.pauses)))+" / "+fmtNs(r.pauseMax*1e9)+" / "+fmtNs(r.pauseTotal*1e9),
				fmtSI(r.heapObjects),
				FormatBytes(r.heapInUse),
				FormatBytes(r.peakRSS),
				fmtSmall(r.rssPerEntry),
				fmtNs(r.p99)+" / "+fmtNs(r.p999),
				fmtInt(r.verified)+" / "+fmtInt(r.missing)+" / "+fmtInt(r.wrong))
		}
		d.para("Each adapter filled in its own process; cheapest forced GC first. Figures are means over the repetitions (max pause: the largest); GC CPU from runtime/metrics; RSS includes off-heap memory.")
		d.table(t)
		d.para(strings.Join(failures, " "))
	}
}
