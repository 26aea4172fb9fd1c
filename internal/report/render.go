package report

import (
	"bufio"
	"fmt"
	"io"
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
	table *Table
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

func (d *document) table(t *Table) {
	if len(t.Rows) > 0 {
		d.blocks = append(d.blocks, block{kind: blockTable, table: t})
	}
}

// docStyle is how one output format draws a document's headings and
// tables; paragraphs are plain lines in every format.
type docStyle struct {
	name    string // for errors
	heading func(level int, text string) string
	table   func(t *Table, w io.Writer) error
}

// write writes d's blocks, a blank line between two, in style.
func (d *document) write(w io.Writer, style docStyle) error {
	bw := bufio.NewWriter(w)
	for i, b := range d.blocks {
		if i > 0 {
			bw.WriteByte('\n')
		}
		switch b.kind {
		case blockHeading:
			bw.WriteString(style.heading(b.level, b.text) + "\n")
		case blockPara:
			bw.WriteString(b.text + "\n")
		case blockTable:
			if err := style.table(b.table, bw); err != nil {
				return err // the table writers' errors say "report: write table"
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: write %s: %w", style.name, err)
	}
	return nil
}

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
				v = FormatInt(n)
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

func addRun(d *document, level int, r *Result) {
	closed, open := splitOpen(r.Measurements)
	for _, g := range groupRun(closed) {
		title := g.workload
		if title == "" {
			title = "(no workload)"
		}
		d.heading(level, "%s · GOMAXPROCS %d · %s keys", title, g.procs, FormatInt(int64(g.keys)))
		if failed := failedIn(r.Errors, g); len(failed) > 0 && onlyProbe(g) {
			// A table of the probe alone would read as a result.
			d.para("No adapter was measured here: every adapter failed (" + strings.Join(failed, ", ") +
				"; see ⚠ Failed above). The harness floor (the null probe) alone is not a result.")
			continue
		}
		floor := takeFloor(g)
		addMainTable(d, g)
		addVectorTable(d, g)
		addFileTable(d, g)
		addMixedTable(d, g, PhaseMixed, "Mixed reads and writes")
		addGetOrSetTable(d, g, time.Duration(r.MissPenalty))
		addOtherTable(d, g)
		d.para(floorLine(floor, g.rows))
	}
	addOpenLoop(d, level, open, r.SLO)
}

// failedIn names the adapters with a failure in g's workload and
// GOMAXPROCS value.
func failedIn(errs []Failure, g *group) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range errs {
		if e.Workload == g.workload && (e.Procs == g.procs || e.Procs == 0) && !seen[e.Adapter] {
			seen[e.Adapter] = true
			out = append(out, e.Adapter)
		}
	}
	return out
}

// onlyProbe reports whether g holds nothing but the floor probe's row.
func onlyProbe(g *group) bool {
	for _, r := range g.rows {
		if r.adapter != engine.ProbeName {
			return false
		}
	}
	return true
}
