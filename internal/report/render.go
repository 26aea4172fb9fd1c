package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
)

// The markdown and text writers render the same document: the tables are
// built once here as headings, paragraphs and tables of strings, and each
// writer only decides how those look.

type blockKind int

const (
	blockHeading blockKind = iota
	blockPara
	blockTable
)

type block struct {
	kind  blockKind
	level int    // heading level, 1 = title
	text  string // heading or paragraph text
	table *table
}

// table is a rendered table; numeric columns are right-aligned in
// markdown.
type table struct {
	header []string
	right  []bool
	rows   [][]string
}

type document struct{ blocks []block }

func (d *document) heading(level int, format string, args ...any) {
	d.blocks = append(d.blocks, block{kind: blockHeading, level: level, text: fmt.Sprintf(format, args...)})
}

func (d *document) para(text string) {
	if text != "" {
		d.blocks = append(d.blocks, block{kind: blockPara, text: text})
	}
}

func (d *document) table(t *table) {
	if len(t.rows) > 0 {
		d.blocks = append(d.blocks, block{kind: blockTable, table: t})
	}
}

// newTable makes a table whose first column is left-aligned and all
// others right-aligned (they hold figures).
func newTable(header ...string) *table {
	right := make([]bool, len(header))
	for i := 1; i < len(right); i++ {
		right[i] = true
	}
	return &table{header: header, right: right}
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// buildDocument renders results one after the other, each under its own
// heading of the given level.
func buildDocument(level int, results []*Result) *document {
	d := &document{}
	for _, r := range results {
		if r == nil {
			continue
		}
		d.heading(level, "%s", resultTitle(r))
		addResult(d, level+1, r)
	}
	return d
}

func resultTitle(r *Result) string {
	cpu := r.Env.CPUModel
	if cpu == "" {
		cpu = "unknown CPU"
	}
	if r.Kind == KindGCPause {
		return "GC pause on " + cpu
	}
	return "cachebench run on " + cpu
}

// addResult adds r's environment lines and tables; subsection headings
// use level.
func addResult(d *document, level int, r *Result) {
	d.para(envLine(r))
	d.para(runLine(r))
	if r.Interrupted {
		line := "⚠ Interrupted: this result holds only what was measured before the run was cancelled"
		if r.InterruptedDuring != "" {
			line += " (cut short: " + r.InterruptedDuring + ")"
		}
		d.para(line + ".")
	}
	for _, e := range r.Errors {
		d.para("⚠ Failed: " + e.String())
	}
	if len(r.Skipped) > 0 {
		d.para("Not measured (the workload does not apply): " + strings.Join(r.Skipped, "; ") + ".")
	}
	if r.Kind == KindGCPause || (len(r.Measurements) == 0 && len(r.GCPause) > 0) {
		addGCPause(d, level, r)
		return
	}
	addRun(d, level, r)
}

// envLine describes the machine and build.
func envLine(r *Result) string {
	e := r.Env
	parts := []string{"CPU: " + orUnknown(e.CPUModel)}
	if e.LogicalCores > 0 {
		parts = append(parts, strconv.Itoa(e.LogicalCores)+" logical cores")
	}
	if e.GoVersion != "" {
		parts = append(parts, strings.TrimSpace(e.GoVersion+" "+joinNonEmpty("/", e.GOOS, e.GOARCH)))
	}
	if e.Kernel != "" {
		parts = append(parts, "kernel "+e.Kernel)
	}
	if e.GOGC != "" {
		parts = append(parts, "GOGC "+e.GOGC)
	}
	if e.GOMEMLIMIT != "" {
		parts = append(parts, "GOMEMLIMIT "+e.GOMEMLIMIT)
	}
	if e.GitRevision != "" {
		parts = append(parts, "revision "+shortRev(e.GitRevision))
	}
	if e.TimerCostNs > 0 {
		parts = append(parts, "timer "+fmtNs(e.TimerCostNs)+" per clock-read pair")
	}
	if e.DependentLoadNs > 0 {
		parts = append(parts, "one DRAM miss (dependent load) "+fmtNs(e.DependentLoadNs))
	}
	if e.THPMode != "" {
		parts = append(parts, "THP "+e.THPMode)
	}
	return strings.Join(parts, " · ")
}

// runLine describes the run: when, how long, and the configuration a
// reader needs to reproduce it.
func runLine(r *Result) string {
	var parts []string
	if !r.Started.IsZero() {
		parts = append(parts, "started "+r.Started.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if r.Duration > 0 {
		parts = append(parts, "took "+time.Duration(r.Duration).Round(time.Second).String())
	}
	for _, k := range []struct{ key, label string }{
		{"seed", "seed "}, {"keys", "keys "}, {"entries", "entries "}, {"count", "count "}, {"value_size", "value size "},
	} {
		if v := r.Config[k.key]; v != "" {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				v = fmtInt(n)
			}
			parts = append(parts, k.label+v)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	line := "Run: " + strings.Join(parts, " · ")
	if r.Kind != KindGCPause && len(r.Measurements) > 0 {
		line += ". Figures are mean ± sample standard deviation over the repetitions; QPS counts the operations of all workers."
	}
	return line
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func joinNonEmpty(sep string, xs ...string) string {
	var out []string
	for _, x := range xs {
		if x != "" {
			out = append(out, x)
		}
	}
	return strings.Join(out, sep)
}

// shortRev shortens a git revision to 12 hex digits, keeping a "-dirty"
// mark.
func shortRev(rev string) string {
	base, dirty := strings.CutSuffix(rev, "-dirty")
	if len(base) > 12 {
		base = base[:12]
	}
	if dirty {
		base += "-dirty"
	}
	return base
}

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
	phases  map[string]*Measurement
	order   []string // phases in first-seen order
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
func (r *row) name(phases ...string) string {
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

func (r *row) flagged(phases ...string) bool {
	for _, p := range phases {
		if m := r.phases[p]; m != nil && len(m.Flags) > 0 {
			return true
		}
	}
	return false
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
			r = &row{adapter: m.Adapter, phases: map[string]*Measurement{}}
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
		for _, p := range []string{PhaseLookup, PhaseMixed, PhaseGetOrSet, PhaseLookupBatch, PhaseLookupCold} {
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

func (r *row) stat(phase string, metric Metric) Summary {
	if m := r.phases[phase]; m != nil {
		return m.Stat(metric)
	}
	return Summary{}
}

// mean returns the mean of metric in phase, or NaN when absent.
func (r *row) mean(phase string, metric Metric) float64 {
	s := r.stat(phase, metric)
	if s.N == 0 {
		return math.NaN()
	}
	return s.Mean
}

func (r *row) hitRatio(phase string) float64 {
	if m := r.phases[phase]; m != nil {
		if h, ok := m.HitRatio(); ok {
			return h
		}
	}
	return math.NaN()
}

func addRun(d *document, level int, r *Result) {
	for _, g := range groupRun(r.Measurements) {
		title := g.workload
		if title == "" {
			title = "(no workload)"
		}
		d.heading(level, "%s · GOMAXPROCS %d · %s keys", title, g.procs, fmtInt(int64(g.keys)))
		floor := takeFloor(g)
		addMainTable(d, g)
		addFileTable(d, g)
		addMixedTable(d, g, PhaseMixed, "Mixed reads and writes")
		addGetOrSetTable(d, g)
		addOtherTable(d, g)
		d.para(floorLine(floor, g.rows))
	}
}

// takeFloor removes the floor probe's row from g and returns it (nil when
// the run has none). A run of the probe alone keeps it as its table.
func takeFloor(g *group) *row {
	for i, r := range g.rows {
		if r.adapter == engine.ProbeName && len(g.rows) > 1 {
			g.rows = append(g.rows[:i:i], g.rows[i+1:]...)
			return r
		}
	}
	return nil
}

// floorLine is the harness floor printed under a group's tables: the null
// probe's time per operation in each phase, and what share it is of the
// fastest unflagged adapter's time in that phase.
func floorLine(floor *row, rows []*row) string {
	if floor == nil {
		return ""
	}
	var parts []string
	for _, p := range floor.order {
		v := floor.mean(p, MetricNsPerOp)
		if math.IsNaN(v) {
			continue
		}
		part := p + " " + fmtNs(v)
		best, bestName := math.Inf(1), ""
		for _, r := range rows {
			if r.flagged(p) {
				continue
			}
			if x := r.mean(p, MetricNsPerOp); x < best {
				best, bestName = x, r.adapter
			}
		}
		if bestName != "" && best > 0 {
			part += fmt.Sprintf(" (%.1f%% of the fastest, %s)", 100*v/best, bestName)
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	line := "Harness floor (the null probe, which stores nothing, through the same loop; part of every figure above): " + strings.Join(parts, " · ") + "."
	if flags := floor.flags(); len(flags) > 0 {
		var texts []string
		for _, f := range flags {
			texts = append(texts, f.Text())
		}
		line += " The probe itself was flagged (" + strings.Join(texts, ", ") + "): the harness is broken, not a cache."
	}
	return line
}

func hasPhase(g *group, phases ...string) []*row {
	var out []*row
	for _, r := range g.rows {
		for _, p := range phases {
			if r.phases[p] != nil {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// notes lists what the figures of phase include, one line per distinct
// Note, naming the adapters when not all rows share it.
func notes(label string, rows []*row, phase string) []string {
	byNote := map[string][]string{}
	var order []string
	with := 0
	for _, r := range rows {
		m := r.phases[phase]
		if m == nil {
			continue
		}
		with++
		if m.Note == "" {
			continue
		}
		if _, ok := byNote[m.Note]; !ok {
			order = append(order, m.Note)
		}
		byNote[m.Note] = append(byNote[m.Note], r.adapter)
	}
	sort.Strings(order)
	var out []string
	for _, n := range order {
		who := ""
		if len(byNote[n]) < with {
			who = " (" + strings.Join(byNote[n], ", ") + ")"
		}
		out = append(out, label+who+": "+n+".")
	}
	return out
}

func addMainTable(d *document, g *group) {
	rows := hasPhase(g, PhaseInsert, PhaseLookup)
	if len(rows) == 0 {
		return
	}
	rows = rankRows(rows, func(r *row) float64 {
		if v := r.mean(PhaseLookup, MetricNsPerOp); !math.IsNaN(v) {
			return v
		}
		// Insert-only rows (a run cut short) rank after every lookup.
		return math.Inf(1)
	}, func(r *row) bool { return r.flagged(PhaseInsert, PhaseLookup) })
	t := newTable("Implementation", "Lookup ns ± sd", "Lookup QPS ± sd", "Insert ns ± sd", "Insert QPS ± sd",
		"Lookup p99", "Lookup allocs/op", "Hit %")
	d.para("Insert every key, then look every key up in random order; fastest lookup first:")
	for _, r := range rows {
		t.add(r.name(PhaseInsert, PhaseLookup),
			fmtNsSD(r.stat(PhaseLookup, MetricNsPerOp)),
			fmtSISD(r.stat(PhaseLookup, MetricOpsPerSec)),
			fmtNsSD(r.stat(PhaseInsert, MetricNsPerOp)),
			fmtSISD(r.stat(PhaseInsert, MetricOpsPerSec)),
			fmtNs(r.mean(PhaseLookup, MetricP99)),
			fmtSmall(r.mean(PhaseLookup, MetricAllocsPerOp)),
			fmtPercent(r.hitRatio(PhaseLookup)))
	}
	d.table(t)
	d.para(strings.Join(append(rankNote(rows, PhaseInsert, PhaseLookup), notes("Insert", rows, PhaseInsert)...), " "))
}

// rankNote explains the order of a table: fastest first, flagged rows
// last and unranked.
func rankNote(rows []*row, phases ...string) []string {
	var flagged []string
	for _, r := range rows {
		if r.flagged(phases...) {
			flagged = append(flagged, r.adapter)
		}
	}
	if len(flagged) == 0 {
		return nil
	}
	return []string{"⚠ " + strings.Join(flagged, ", ") + ": flagged, listed last and not ranked; see the flags next to the name."}
}

// addFileTable shows the phases only some adapters have: open time and
// cold lookups of file stores, batched lookups.
func addFileTable(d *document, g *group) {
	rows := hasPhase(g, PhaseOpen, PhaseLookupBatch, PhaseLookupCold)
	if len(rows) == 0 {
		return
	}
	phases := []string{PhaseOpen, PhaseLookupBatch, PhaseLookupCold}
	rows = rankRows(rows, func(r *row) float64 {
		if v := r.mean(PhaseLookupBatch, MetricNsPerOp); !math.IsNaN(v) {
			return v
		}
		return r.mean(PhaseLookupCold, MetricNsPerOp)
	}, func(r *row) bool { return r.flagged(phases...) })
	d.para("File stores and batched lookups:")
	t := newTable("Implementation", "Open", "Batch lookup ns ± sd", "Batch QPS ± sd", "Cold lookup ns ± sd", "Cold p99", "Cold hit %")
	for _, r := range rows {
		t.add(r.name(phases...),
			fmtNsSD(r.stat(PhaseOpen, MetricNsPerOp)),
			fmtNsSD(r.stat(PhaseLookupBatch, MetricNsPerOp)),
			fmtSISD(r.stat(PhaseLookupBatch, MetricOpsPerSec)),
			fmtNsSD(r.stat(PhaseLookupCold, MetricNsPerOp)),
			fmtNs(r.mean(PhaseLookupCold, MetricP99)),
			fmtPercent(r.hitRatio(PhaseLookupCold)))
	}
	d.table(t)
	var ns []string
	ns = append(ns, rankNote(rows, phases...)...)
	ns = append(ns, notes("Open", rows, PhaseOpen)...)
	ns = append(ns, notes("Batch lookup", rows, PhaseLookupBatch)...)
	ns = append(ns, notes("Cold lookup", rows, PhaseLookupCold)...)
	d.para(strings.Join(ns, " "))
}

func addMixedTable(d *document, g *group, phase, label string) {
	rows := hasPhase(g, phase)
	if len(rows) == 0 {
		return
	}
	rows = rankRows(rows, func(r *row) float64 { return r.mean(phase, MetricNsPerOp) },
		func(r *row) bool { return r.flagged(phase) })
	t := newTable("Implementation", "ns/op ± sd", "QPS ± sd", "p50", "p99", "p99.9", "allocs/op", "B/op", "Hit %")
	showHeld := anyHeld(rows, phase)
	if showHeld {
		t = newTable("Implementation", "ns/op ± sd", "QPS ± sd", "p50", "p99", "p99.9", "allocs/op", "B/op", "Hit %", "Held / budget")
	}
	for _, r := range rows {
		cells := []string{r.name(phase),
			fmtNsSD(r.stat(phase, MetricNsPerOp)),
			fmtSISD(r.stat(phase, MetricOpsPerSec)),
			fmtNs(r.mean(phase, MetricP50)),
			fmtNs(r.mean(phase, MetricP99)),
			fmtNs(r.mean(phase, MetricP999)),
			fmtSmall(r.mean(phase, MetricAllocsPerOp)),
			FormatBytes(r.mean(phase, MetricBytesPerOp)),
			fmtPercent(r.hitRatio(phase))}
		if showHeld {
			cells = append(cells, r.held(phase))
		}
		t.add(cells...)
	}
	d.para(label + ", fastest first:")
	d.table(t)
	d.para(strings.Join(append(rankNote(rows, phase), notes(label, rows, phase)...), " "))
}

// addGetOrSetTable ranks by hit ratio: in a capacity-bound cache the hit
// ratio is what the workload measures, speed comes second.
func addGetOrSetTable(d *document, g *group) {
	const phase = PhaseGetOrSet
	rows := hasPhase(g, phase)
	if len(rows) == 0 {
		return
	}
	rows = rankRows(rows, func(r *row) float64 { return -r.hitRatio(phase) },
		func(r *row) bool { return r.flagged(phase) })
	// Memory columns appear when an adapter reported its footprint
	// (network servers, caches that count their bytes), and what it held
	// against the run's budget when the runner read its occupancy.
	memory := false
	for _, r := range rows {
		if !math.IsNaN(r.mean(phase, MetricHeldRatio)) || !math.IsNaN(r.mean(phase, MetricRSSRatio)) {
			memory = true
		}
	}
	showHeld := anyHeld(rows, phase)
	head := []string{"Implementation", "Hit %", "Hot hit %", "Cold hit %", "ns/op ± sd", "QPS ± sd", "p50", "p99", "allocs/op", "B/op"}
	if memory {
		head = append(head, "Held / limit", "RSS / limit")
	}
	if showHeld {
		head = append(head, "Held / budget")
	}
	t := newTable(head...)
	for _, r := range rows {
		cells := []string{r.name(phase),
			fmtPercent(r.hitRatio(phase)),
			fmtPercent(r.mean(phase, MetricHotHitRatio)),
			fmtPercent(r.mean(phase, MetricColdHitRatio)),
			fmtNsSD(r.stat(phase, MetricNsPerOp)),
			fmtSISD(r.stat(phase, MetricOpsPerSec)),
			fmtNs(r.mean(phase, MetricP50)),
			fmtNs(r.mean(phase, MetricP99)),
			fmtSmall(r.mean(phase, MetricAllocsPerOp)),
			FormatBytes(r.mean(phase, MetricBytesPerOp))}
		if memory {
			cells = append(cells, fmtLimitPercent(r.mean(phase, MetricHeldRatio)), fmtLimitPercent(r.mean(phase, MetricRSSRatio)))
		}
		if showHeld {
			cells = append(cells, r.held(phase))
		}
		t.add(cells...)
	}
	d.para("Get-or-set (a miss sets the key), highest hit ratio first:")
	d.table(t)
	d.para(strings.Join(append(rankNote(rows, phase), notes("Get-or-set", rows, phase)...), " "))
}

// anyHeld reports whether any row recorded its occupancy in phase (results
// written before occupancy was read have none, and keep their columns).
func anyHeld(rows []*row, phase string) bool {
	for _, r := range rows {
		if r.maxHeld(phase) != nil {
			return true
		}
	}
	return false
}

// maxHeld is the repetition in which the row held the most of its budget.
func (r *row) maxHeld(phase string) *Held {
	m := r.phases[phase]
	if m == nil {
		return nil
	}
	var h *Held
	for i := range m.Samples {
		if s := m.Samples[i].Held; s != nil && (h == nil || s.Ratio() > h.Ratio()) {
			h = s
		}
	}
	return h
}

// held renders what the adapter held against its budget, on the basis it
// is judged on, e.g. "254% (32.0 MiB / 12.6 MiB)".
func (r *row) held(phase string) string {
	h := r.maxHeld(phase)
	switch {
	case h == nil || h.Basis == "":
		return "–"
	case h.Basis == "bytes":
		return fmt.Sprintf("%.0f%% (%s / %s)", 100*h.Ratio(), FormatBytes(float64(h.Bytes)), FormatBytes(float64(h.BudgetBytes)))
	default:
		return fmt.Sprintf("%.0f%% (%s / %s entries)", 100*h.Ratio(), fmtInt(h.Entries), fmtInt(h.BudgetEntries))
	}
}

var knownPhases = map[string]bool{
	PhaseInsert: true, PhaseLookup: true, PhaseMixed: true, PhaseGetOrSet: true,
	PhaseLookupCold: true, PhaseOpen: true, PhaseLookupBatch: true,
}

// addOtherTable shows phases this version does not know, so that no
// measurement in a result is silently left out of its report.
func addOtherTable(d *document, g *group) {
	t := newTable("Implementation", "Phase", "ns/op ± sd", "QPS ± sd", "p99", "allocs/op", "Hit %")
	for _, r := range g.rows {
		for _, p := range r.order {
			if knownPhases[p] {
				continue
			}
			t.add(r.name(p), p,
				fmtNsSD(r.stat(p, MetricNsPerOp)),
				fmtSISD(r.stat(p, MetricOpsPerSec)),
				fmtNs(r.mean(p, MetricP99)),
				fmtSmall(r.mean(p, MetricAllocsPerOp)),
				fmtPercent(r.hitRatio(p)))
		}
	}
	if len(t.rows) > 0 {
		d.para("Other phases:")
		d.table(t)
	}
}
