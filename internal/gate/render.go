package gate

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cachebench/cachebench/internal/report/compare"
)

// Formats accepted by Write.
var Formats = []string{"text", "markdown"}

// Write renders the gate's outcome in format ("text", or "markdown" for
// a CI job summary such as $GITHUB_STEP_SUMMARY): the verdict first, what
// was compared and how, then each comparison's tables.
func Write(w io.Writer, r *Result, format string) error {
	if format != "text" && format != "markdown" {
		return fmt.Errorf("gate: unknown format %q (valid: %s)", format, strings.Join(Formats, ", "))
	}
	md := format == "markdown"
	o := r.Options
	var b strings.Builder
	verdict := "no regression"
	if n := r.Regressions(); n > 0 {
		verdict = fmt.Sprintf("REGRESSION (%d)", n)
	}
	base := "none (times not gated)"
	switch {
	case r.SameBinary:
		base = short(r.BaseRev) + " (the same binary as new: times not gated)"
	case r.BaseRev != "":
		base = short(r.BaseRev)
	}
	lines := []string{
		fmt.Sprintf("base %s, new %s; package %s", code(md, base), code(md, short(r.NewRev)), code(md, o.Package)),
		fmt.Sprintf("suite: run --adapters %s --workload %s --keys %d, %s",
			o.Adapters, o.Workload, o.Keys, repetitions(r)),
		fmt.Sprintf("rule: times and rates as ratios to %s in the same repetition, minimum effect %g%%; allocs/op and B/op exact; a regression against the base is confirmed by a second set of runs",
			o.Reference, o.Threshold*100),
		fmt.Sprintf("built in %s, measured in %s", r.Build.Round(time.Second), r.Measure.Round(time.Second)),
	}
	if md {
		fmt.Fprintf(&b, "## cachebench gate: %s\n\n", verdict)
		for _, l := range lines {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	} else {
		fmt.Fprintf(&b, "cachebench gate: %s\n", verdict)
		for _, l := range lines {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	if len(r.Allocs) == 0 {
		b.WriteString(para(md, "No baseline given: allocations are compared with the base revision only."))
	}
	if r.Times != nil && r.Times.Report.Regressions() > 0 && r.Confirm != nil {
		if n := r.Confirm.Report.Regressions(); n == 0 {
			b.WriteString(para(md, "The first set found a regression against the base revision; the second set did not confirm it."))
		} else {
			b.WriteString(para(md, fmt.Sprintf("Confirmed: the second set of runs found %d regressions against the base revision.", n)))
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	all := append([]Comparison{}, r.Allocs...)
	for _, c := range []*Comparison{r.Times, r.Confirm} {
		if c != nil {
			all = append(all, *c)
		}
	}
	for _, c := range all {
		head := fmt.Sprintf("\n== %s: %d regressions\n", c.Title, c.Report.Regressions())
		if md {
			head = fmt.Sprintf("\n### %s: %d regressions\n\n", c.Title, c.Report.Regressions())
		}
		if _, err := io.WriteString(w, head); err != nil {
			return err
		}
		if err := compare.Write(w, c.Report, format); err != nil {
			return err
		}
	}
	return nil
}

func code(md bool, s string) string {
	if md {
		return "`" + s + "`"
	}
	return s
}

func para(md bool, s string) string {
	if md {
		return "\n" + s + "\n"
	}
	return "  " + s + "\n"
}

// repetitions says how the suite ran: interleaved with the base
// revision's binary, or the new one alone when there was none to time.
func repetitions(r *Result) string {
	o := r.Options
	if r.BaseRev == "" || r.SameBinary {
		return fmt.Sprintf("%d repetitions of the new binary over %d processes", o.Count, o.Processes)
	}
	return fmt.Sprintf("%d repetitions per side over %d processes, interleaved", o.Count, o.Processes)
}
