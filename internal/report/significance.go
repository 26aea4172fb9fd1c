package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"
)

// Which differences in a ranked table the repetitions support. The rule,
// also in docs/method.md ("Ranks and spread"):
//
//   - Going down the table, a row is compared with the row that holds the
//     current rank (the first row of its tie group) by a Mann-Whitney U
//     test over their per-repetition values (benchmath, as benchstat and
//     compare use). p < RankAlpha: the row starts a new rank, its
//     position. Otherwise it shares that rank, shown as "≈N": "not told
//     apart from the row ranked N". Comparing with the group's first row
//     rather than the row above keeps one wide-spread row from chaining
//     a whole table into one tie.
//   - With fewer than MinRankSamples repetitions on either side no
//     difference can reach p < RankAlpha (at 3 and 3 the smallest
//     two-sided p is 0.1; see MinSamples), so the table gets no rank
//     column and says why.
//   - A row whose coefficient of variation (sd / mean) over the
//     repetitions exceeds SpreadWarn is named in a spread warning under
//     the table: with 5 repetitions, a CoV of 20% makes the 95% interval
//     of the mean about ±25%, wider than most gaps between adjacent rows.
const (
	RankAlpha = 0.05
	// MinRankSamples is MinSamples(RankAlpha), as a constant for the
	// messages that name it; a test keeps the two equal.
	MinRankSamples = 4
	SpreadWarn     = 0.20
)

// SmallestP is the smallest two-sided p-value a Mann-Whitney U test can
// give for m values against n: the two sets entirely apart, one of the
// C(m+n, m) equally likely orderings at each end, so 2 / C(m+n, m) (1
// when either side is empty). No data, however far apart, gets below it.
func SmallestP(m, n int) float64 {
	if m <= 0 || n <= 0 {
		return 1
	}
	// C(m+n, m) as a float, in the order that keeps each step exact
	// while it fits.
	c := 1.0
	for i := 1; i <= min(m, n); i++ {
		c = c * float64(max(m, n)+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// MinSamples is the fewest repetitions per side (the same on both) with
// which a Mann-Whitney U test can reach p < alpha: with fewer, every
// comparison says "no difference" whatever the data, a verdict weaker
// than it looks. 4 at alpha 0.05 (2/C(8,4) = 0.029; at 3 and 3 the
// smallest p is 0.1). Every command that gives a verdict at a
// significance level refuses fewer samples than this, saying the
// minimum: gate, compare, and the ranks of the tables.
func MinSamples(alpha float64) int {
	for n := 1; ; n++ {
		if SmallestP(n, n) < alpha || n > 1000 {
			return n
		}
	}
}

// CheckSamples refuses m and n values per side when no difference
// between them can reach p < alpha (SmallestP), saying the minimum per
// side; what is named says what was counted ("--count 3").
func CheckSamples(what string, m, n int, alpha float64) error {
	if p := SmallestP(m, n); !(p < alpha) {
		return fmt.Errorf("%s: %d and %d samples cannot reach p < %g (the smallest p they allow is %.3g): at least %d per side",
			what, m, n, alpha, p, MinSamples(alpha))
	}
	return nil
}

// ranks returns, for rows in table order, the rank cell of each: "1",
// "2", "≈2" (not separated from the row above), "–" for a flagged row
// (not ranked). ok is false when some unflagged row has fewer than
// MinRankSamples values of metric in phase: then no rank is shown.
func ranks(rows []*row, phase Phase, metric Metric, flagged func(*row) bool) (cells []string, ok bool) {
	cells = make([]string, len(rows))
	rank := 0
	var anchor []float64 // the values of the row that holds rank
	for i, r := range rows {
		if flagged(r) {
			cells[i] = dash
			continue
		}
		vals := r.values(phase, metric)
		if len(vals) < MinSamples(RankAlpha) {
			return nil, false
		}
		if anchor != nil && !separated(anchor, vals) {
			cells[i] = "≈" + strconv.Itoa(rank)
			continue
		}
		rank, anchor = i+1, vals
		cells[i] = strconv.Itoa(rank)
	}
	return cells, true
}

// Separated reports whether a Mann-Whitney U test tells two sets of
// repetitions apart at RankAlpha: the one significance rule of the ranked
// tables, for callers outside the package (advise's verdict).
func Separated(a, b []float64) bool { return separated(a, b) }

// separated reports whether a Mann-Whitney U test tells the two sets of
// repetitions apart at RankAlpha.
func separated(a, b []float64) bool {
	thr := &benchmath.Thresholds{CompareAlpha: RankAlpha}
	// NewSample sorts in place: hand it copies.
	c := benchmath.AssumeNothing.Compare(
		benchmath.NewSample(append([]float64(nil), a...), thr),
		benchmath.NewSample(append([]float64(nil), b...), thr))
	return c.P < RankAlpha
}

func (r *row) values(phase Phase, metric Metric) []float64 {
	if m := r.phases[phase]; m != nil {
		return m.Values(metric)
	}
	return nil
}

// addRankColumn puts the rank cells in front of t's rows, or says under
// the table why there are none. It returns the note to print.
func addRankColumn(t *Table, rows []*row, phase Phase, metric Metric, flagged func(*row) bool) string {
	ranked := 0
	for _, r := range rows {
		if !flagged(r) {
			ranked++
		}
	}
	if ranked < 2 {
		return "" // nothing to tell apart
	}
	cells, ok := ranks(rows, phase, metric, flagged)
	if !ok {
		return fmt.Sprintf("No ranks: fewer than %d repetitions cannot tell any two rows apart (use --count %d or more).",
			MinRankSamples, MinRankSamples)
	}
	t.Header = append([]string{"Rank"}, t.Header...)
	t.Align = append([]Align{AlignRight}, t.Align...)
	t.Align[1] = AlignLeft
	for i := range t.Rows {
		t.Rows[i] = append([]string{cells[i]}, t.Rows[i]...)
	}
	for _, c := range cells {
		if strings.HasPrefix(c, "≈") {
			return fmt.Sprintf("Rank ≈N: the repetitions do not tell this row apart from the row ranked N (Mann-Whitney U, p ≥ %g).", RankAlpha)
		}
	}
	return ""
}

// spreadWarning names the unflagged rows whose values of metric in the
// given phases vary by more than SpreadWarn of their mean over the
// repetitions, or returns "".
func spreadWarning(rows []*row, flagged func(*row) bool, metric Metric, phases ...Phase) string {
	var wide []string
	for _, r := range rows {
		if flagged(r) {
			continue
		}
		var parts []string
		for _, p := range phases {
			s := r.stat(p, metric)
			if s.N < 2 || !(s.Mean > 0) {
				continue
			}
			if cov := s.SD / s.Mean; cov > SpreadWarn {
				parts = append(parts, fmt.Sprintf("%s %.0f%%", p, 100*cov))
			}
		}
		if len(parts) > 0 {
			wide = append(wide, r.adapter+" ("+strings.Join(parts, ", ")+")")
		}
	}
	if len(wide) == 0 {
		return ""
	}
	return fmt.Sprintf("⚠ Spread: %s varied by more than %.0f%% (sd / mean) over the repetitions: the machine was busy or the figure drifts, "+
		"so ranks near these rows may not repeat; re-run on a quiet machine or with a larger --count.",
		strings.Join(wide, ", "), 100*SpreadWarn)
}

// allHit reports whether every row that did lookups in phase hit every
// time: then a hit ratio column says nothing.
func allHit(rows []*row, phase Phase) bool {
	for _, r := range rows {
		if h := r.hitRatio(phase); !math.IsNaN(h) && h < 1 {
			return false
		}
	}
	return true
}
