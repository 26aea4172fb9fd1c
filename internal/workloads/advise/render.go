package advise

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/cachebench/cachebench/internal/report"
)

// WriteJSON writes every figure of res: the answer, the plan as run,
// and the runner's and gc-pause's results it rests on.
func WriteJSON(w io.Writer, res *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return fmt.Errorf("advise: encode result: %w", err)
	}
	return nil
}

// figure formats a figure of a row, "–" when not measured (-1).
func figure(v float64, f func(float64) string) string {
	if v < 0 {
		return "–"
	}
	return f(v)
}

// Table is the answer's table: at most 8 columns, one row per adapter,
// ranked ones first.
func (res *Result) Table() *report.Table {
	t := report.NewFigureTable("Adapter",
		fmt.Sprintf("Time per request, misses at %v", res.Question.MissPenalty),
		"Hit %", "Lookup p99", "Insert", "Memory per entry", "GC cost", "Held / budget")
	for _, r := range res.Rows {
		name := r.Adapter
		switch {
		case r.Rank != "":
			name = r.Rank + " " + name
		case r.Unbounded:
			name += " (unbounded)"
		default:
			name += " ⚠ not ranked"
		}
		per := "–"
		if r.TimePerRequestNs >= 0 {
			per = report.FormatNs(r.TimePerRequestNs)
			if len(r.TimePerRequest) > 1 {
				per += " ± " + report.FormatNs(r.TimePerRequestSD)
			}
		}
		t.Add(name, per,
			figure(r.HitRatio, report.FormatPercent),
			figure(r.LookupP99Ns, report.FormatNs),
			figure(r.InsertNs, report.FormatNs),
			figure(r.BytesPerEntry, func(v float64) string { return report.FormatBytes(v) }),
			figure(r.GCSeconds, func(v float64) string { return report.FormatNs(v * 1e9) }),
			r.Held)
	}
	return t
}

// WriteMarkdown writes the verdict, the table, the reasons, the mixed
// pass and the commands that reproduce the figures.
func WriteMarkdown(w io.Writer, res *Result) error {
	b := bufio.NewWriter(w)
	if res.Partial {
		fmt.Fprintln(b, "**Partial: interrupted; the figures below are those measured before.**")
		fmt.Fprintln(b)
	}
	fmt.Fprintln(b, "**Verdict:** "+res.Verdict)
	fmt.Fprintln(b)
	if err := b.Flush(); err != nil {
		return err
	}
	if err := res.Table().WriteMarkdown(w); err != nil {
		return err
	}
	fmt.Fprintln(b)
	fmt.Fprintf(b, "Ranked by the time per request with misses (get-or-set ns/op + miss ratio × %v); \"≈N\": not told apart from rank N (Mann-Whitney U, p ≥ %g); "+
		"GC cost: wall time of a full forced collection after filling %s entries (GOGC=%d); memory per entry: peak RSS over the entries.\n",
		res.Question.MissPenalty, report.RankAlpha, report.FormatInt(int64(res.Question.Keys)), gcGOGC)
	if res.Mixed != "" {
		fmt.Fprintln(b)
		fmt.Fprintln(b, res.Mixed)
	}
	if len(res.Reasons) > 0 {
		fmt.Fprintln(b)
		for _, r := range res.Reasons {
			fmt.Fprintln(b, "- "+r)
		}
	}
	fmt.Fprintln(b)
	fmt.Fprintln(b, "Reproduce each figure:")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "```sh")
	for _, c := range res.Commands {
		fmt.Fprintln(b, c)
	}
	fmt.Fprintln(b, "```")
	return b.Flush()
}
