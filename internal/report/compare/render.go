package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cachebench/cachebench/internal/report"
)

// Formats accepted by Write.
var Formats = []string{"text", "markdown", "json"}

// Write renders rep in format ("text", "markdown" or "json").
func Write(w io.Writer, rep *Report, format string) error {
	switch format {
	case "text":
		return writeTable(w, rep, false)
	case "markdown":
		return writeTable(w, rep, true)
	case "json":
		return writeJSON(w, rep)
	}
	return fmt.Errorf("compare: unknown format %q (valid: %s)", format, strings.Join(Formats, ", "))
}

// describeOptions says how the comparison was made, in one line.
func describeOptions(o Options) string {
	var parts []string
	for _, s := range o.Metrics {
		switch {
		case s.Exact && s.Threshold == 0:
			parts = append(parts, fmt.Sprintf("%s exact", s.Metric))
		case s.Exact:
			parts = append(parts, fmt.Sprintf("%s exact ± %g", s.Metric, s.Threshold))
		default:
			parts = append(parts, fmt.Sprintf("%s ≥ %s", s.Metric, fmtPct(s.Threshold)))
		}
	}
	line := fmt.Sprintf("Mann-Whitney U at alpha %g; minimum effect: %s", o.Alpha, strings.Join(parts, ", "))
	if o.ExactRelTolerance > 0 {
		line += fmt.Sprintf(", exact metrics within %s", fmtPct(o.ExactRelTolerance))
	}
	if o.SpreadFactor > 0 {
		line += fmt.Sprintf(", raised to %g × the wider within-run spread (2 × IQR / median) where that is larger", o.SpreadFactor)
	}
	if o.Normalize != "" {
		line += fmt.Sprintf("; times and rates normalised to %s, repetition by repetition (batched lookups to its lookup; other phases it lacks on absolute figures)", o.Normalize)
	}
	if o.Rule != "" {
		line += ".\nrule: " + o.Rule
	}
	return line
}

func fmtPct(f float64) string {
	return strconv.FormatFloat(f*100, 'g', 4, 64) + "%"
}

// title is a metric's section title.
func title(spec MetricSpec, normalized bool, ref string) string {
	t := string(spec.Metric)
	if normalized {
		t += " ÷ " + ref + " (same repetition)"
	}
	if spec.Better == HigherIsBetter {
		t += ", higher is better"
	} else {
		t += ", lower is better"
	}
	return t
}

func writeTable(w io.Writer, rep *Report, md bool) error {
	o := rep.Options
	oldName, newName := nonEmpty(rep.OldName, "OLD"), nonEmpty(rep.NewName, "NEW")
	var b strings.Builder
	if md {
		fmt.Fprintf(&b, "## cachebench compare\n\nOLD: `%s` · NEW: `%s`\n\n%s.\n", oldName, newName, describeOptions(o))
	} else {
		fmt.Fprintf(&b, "cachebench compare\nOLD: %s\nNEW: %s\n%s.\n", oldName, newName, describeOptions(o))
	}
	if rep.Machines != "" {
		fmt.Fprintf(&b, "\n⚠ Different machines: %s\n", rep.Machines)
	}
	showKeys := distinctKeys(rep.Rows)
	for _, spec := range o.Metrics {
		var rows []Row
		for _, r := range rep.Rows {
			if r.Metric == spec.Metric {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		head := []string{"adapter", "workload", "phase", "procs"}
		if showKeys {
			head = append(head, "keys")
		}
		head = append(head, "old", "new", "delta", "p", "")
		tab := report.NewTable(head...)
		// procs, keys and the figures line up on the right; the names and
		// the verdict on the left.
		for i := 3; i < len(head)-1; i++ {
			tab.Align[i] = report.AlignRight
		}
		for _, r := range rows {
			oc, nc := fmtPair(r, r.Old.Center, r.New.Center)
			line := []string{r.Key.Adapter, r.Key.Workload, string(r.Key.Phase), strconv.Itoa(r.Key.Procs)}
			if showKeys {
				line = append(line, strconv.Itoa(r.Key.Keys))
			}
			line = append(line, oc, nc, fmtDelta(r), fmtP(r), verdictText(r.Verdict))
			tab.Add(line...)
		}
		t := title(spec, rows[0].Normalized, o.Normalize)
		write := tab.WriteText
		if md {
			fmt.Fprintf(&b, "\n### %s\n\n", t)
			write = tab.WriteMarkdown
		} else {
			fmt.Fprintf(&b, "\n%s\n", t)
		}
		if err := write(&b); err != nil {
			return fmt.Errorf("compare: write: %w", err)
		}
	}
	writeNotes(&b, rep, md)
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("compare: write: %w", err)
	}
	return nil
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func distinctKeys(rows []Row) bool {
	for _, r := range rows {
		if r.Key.Keys != rows[0].Key.Keys {
			return true
		}
	}
	return false
}

func writeNotes(b *strings.Builder, rep *Report, md bool) {
	item := func(s string) {
		if md {
			b.WriteString("- " + s + "\n")
		} else {
			b.WriteString("  " + s + "\n")
		}
	}
	section := func(t string, lines []string) {
		if len(lines) == 0 {
			return
		}
		if md {
			fmt.Fprintf(b, "\n**%s**\n\n", t)
		} else {
			fmt.Fprintf(b, "\n%s\n", t)
		}
		for _, l := range lines {
			item(l)
		}
	}
	section("REGRESSION: problems flagged in NEW only", rep.NewFlags)
	section("REGRESSION: adapter errors in NEW only", rep.NewErrors)
	section("Only in OLD (not compared)", keyStrings(rep.OnlyOld))
	section("Only in NEW (not compared)", keyStrings(rep.OnlyNew))
	var warns []string
	seen := map[string]bool{}
	for _, r := range rep.Rows {
		for _, w := range r.Warnings {
			if !seen[w] {
				seen[w] = true
				warns = append(warns, w)
			}
		}
	}
	sort.Strings(warns)
	section("Warnings", warns)
	same, small := 0, 0
	for _, r := range rep.Rows {
		switch r.Verdict {
		case Same:
			same++
		case Small:
			small++
		}
	}
	summary := fmt.Sprintf("%d regressions, %d improvements, %d below the minimum effect, %d unchanged (~).",
		rep.Regressions(), rep.Improvements(), small, same)
	if md {
		fmt.Fprintf(b, "\n**%s**\n", summary)
	} else {
		fmt.Fprintf(b, "\n%s\n", summary)
	}
}

func keyStrings(ks []Key) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.String()
	}
	return out
}

func verdictText(v Verdict) string {
	switch v {
	case Regression:
		return "REGRESSION"
	case Improvement:
		return "improvement"
	case Small:
		return "below threshold"
	}
	return ""
}

func fmtDelta(r Row) string {
	if r.Verdict == Same {
		return "~"
	}
	if math.IsNaN(r.Delta) {
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", r.Delta*100)
}

func fmtP(r Row) string {
	if r.Exact {
		return "exact"
	}
	return fmt.Sprintf("p=%.3f n=%d+%d", r.P, r.Old.N, r.New.N)
}

// fmtPair formats the two centers with the same rule; exact metrics get
// as many digits as needed for a flagged difference to be visible.
func fmtPair(r Row, o, n float64) (string, string) {
	f := func(v float64, digits int) string { return fmtValue(r, v, digits) }
	if !r.Exact || o == n {
		return f(o, report.TableDigits), f(n, report.TableDigits)
	}
	for d := report.TableDigits; d <= 12; d++ {
		if a, b := f(o, d), f(n, d); a != b {
			return a, b
		}
	}
	// Equal to 12 digits: float noise, shown as the equal figures they are.
	return f(o, report.TableDigits), f(n, report.TableDigits)
}

// fmtValue formats v with the given significant digits in the metric's
// unit (report's formatter), or as a ratio to the reference when the row
// is normalised.
func fmtValue(r Row, v float64, digits int) string {
	if r.Normalized {
		return report.FormatFigure(v, digits) + "×"
	}
	return report.FormatMetric(r.Metric, v, digits)
}

// jsonRow is Row with the NaN-able numbers as optional fields, since JSON
// has no NaN.
type jsonRow struct {
	Row
	Delta *float64 `json:"delta,omitempty"`
	P     *float64 `json:"p,omitempty"`
}

type jsonReport struct {
	*Report
	Rows         []jsonRow `json:"rows"`
	Alpha        float64   `json:"alpha"`
	MinSamples   int       `json:"min_samples"`
	Normalize    string    `json:"normalize,omitempty"`
	SpreadFactor float64   `json:"spread_factor,omitempty"`
	Rule         string    `json:"rule,omitempty"`
	Thresholds   []jsonThr `json:"thresholds"`
	Regressions  int       `json:"regressions"`
	Improvements int       `json:"improvements"`
}

type jsonThr struct {
	Metric    report.Metric `json:"metric"`
	Exact     bool          `json:"exact,omitempty"`
	Threshold float64       `json:"threshold"`
}

func finite(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

func writeJSON(w io.Writer, rep *Report) error {
	out := jsonReport{
		Report:       rep,
		Rows:         make([]jsonRow, len(rep.Rows)),
		Alpha:        rep.Options.Alpha,
		MinSamples:   rep.Options.MinSamples,
		Normalize:    rep.Options.Normalize,
		SpreadFactor: rep.Options.SpreadFactor,
		Rule:         rep.Options.Rule,
		Regressions:  rep.Regressions(),
		Improvements: rep.Improvements(),
	}
	for i, r := range rep.Rows {
		out.Rows[i] = jsonRow{Row: r, Delta: finite(r.Delta), P: finite(r.P)}
	}
	for _, s := range rep.Options.Metrics {
		out.Thresholds = append(out.Thresholds, jsonThr{s.Metric, s.Exact, s.Threshold})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("compare: encode json: %w", err)
	}
	return nil
}
