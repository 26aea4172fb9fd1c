package compare

import (
	"errors"
	"fmt"
	"math"

	"github.com/cachebench/cachebench/internal/report"
)

// Key identifies one measurement across two results.
type Key struct {
	Adapter  string       `json:"adapter"`
	Workload string       `json:"workload"`
	Phase    report.Phase `json:"phase"`
	Procs    int          `json:"procs"`
	Keys     int          `json:"keys"`
	// Rate is an open-loop measurement's offered rate (0: closed loop):
	// each rate is compared with the same rate only.
	Rate float64 `json:"rate,omitempty"`
}

func keyOf(m report.Measurement) Key {
	return Key{m.Adapter, m.Workload, m.Phase, m.Procs, m.Keys, m.Rate}
}

// String renders k as adapter/workload/phase/keys-procs.
func (k Key) String() string {
	s := fmt.Sprintf("%s %s/%s keys=%d procs=%d", k.Adapter, k.Workload, k.Phase, k.Keys, k.Procs)
	if k.Rate > 0 {
		s += fmt.Sprintf(" rate=%g/s", k.Rate)
	}
	return s
}

// Verdict is the outcome of one row.
type Verdict string

// Verdicts.
const (
	// Same: no significant difference (shown as "~"), or an exact metric
	// within its tolerance.
	Same Verdict = "same"
	// Small: significant, but smaller than the minimum effect.
	Small Verdict = "below-threshold"
	// Improvement: significant and beyond the threshold, in the better
	// direction.
	Improvement Verdict = "improvement"
	// Regression: significant and beyond the threshold, in the worse
	// direction.
	Regression Verdict = "regression"
)

// Side summarises one side of a row.
type Side struct {
	// N is the number of values compared.
	N int `json:"n"`
	// Center is the median for statistical metrics (what the U test
	// compares) and the mean for exact ones.
	Center float64 `json:"center"`
	// Min and Max bound the values.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// relSpread is how far one run's repetitions span, robustly: twice the
// interquartile range over the median (about the range of five normal
// samples, but not moved by one outlier). sorted must be sorted.
func relSpread(sorted []float64) float64 {
	n := len(sorted)
	if n < 2 {
		return 0
	}
	q := func(p float64) float64 { // linear interpolation between ranks
		x := p * float64(n-1)
		i := int(x)
		if i+1 >= n {
			return sorted[n-1]
		}
		return sorted[i] + (x-float64(i))*(sorted[i+1]-sorted[i])
	}
	med := q(0.5)
	if med == 0 || math.IsNaN(med) {
		return 0
	}
	return 2 * (q(0.75) - q(0.25)) / math.Abs(med)
}

// Row is one measurement and metric compared.
type Row struct {
	Key    Key           `json:"key"`
	Metric report.Metric `json:"metric"`
	// Normalized is true when the values are ratios to the reference
	// adapter (Options.Normalize).
	Normalized bool `json:"normalized,omitempty"`
	Exact      bool `json:"exact,omitempty"`
	Old        Side `json:"old"`
	New        Side `json:"new"`
	// Delta is new/old - 1 of the centers; NaN when old is 0 and new is
	// not.
	Delta float64 `json:"-"`
	// P is the U test's p-value; NaN for exact metrics.
	P float64 `json:"-"`
	// MinEffect is the minimum effect applied to this row: the metric's
	// threshold, or more where the runs' own spread is wider
	// (Options.SpreadFactor).
	MinEffect float64 `json:"min_effect,omitempty"`
	Verdict   Verdict `json:"verdict"`
	// Warnings are benchmath's remarks (e.g. too few samples to ever be
	// significant).
	Warnings []string `json:"warnings,omitempty"`
}

// Report is the outcome of a comparison.
type Report struct {
	Options Options `json:"-"`
	// OldName and NewName label the two sides in rendered output (file
	// names); Compare leaves them empty.
	OldName string `json:"old_name,omitempty"`
	NewName string `json:"new_name,omitempty"`
	Rows    []Row  `json:"rows"`
	// OnlyOld and OnlyNew list measurements present on one side only.
	OnlyOld []Key `json:"only_old,omitempty"`
	OnlyNew []Key `json:"only_new,omitempty"`
	// NewFlags lists problems flagged in NEW that OLD did not have for
	// the same measurement (wrong values, errors, lost entries): each is
	// a regression, since a cache that now returns wrong data is worse
	// however fast it is.
	NewFlags []string `json:"new_flags,omitempty"`
	// NewErrors lists adapter failures recorded in NEW and not in OLD;
	// each is a regression.
	NewErrors []string `json:"new_errors,omitempty"`
	// Machines is set when OLD and NEW ran on different machines (CPU
	// model, logical cores, OS or architecture): it says what differs and
	// how to read the comparison. Not a regression by itself.
	Machines string `json:"machines_differ,omitempty"`
}

// Regressions counts the regressions: rows, new flags and new errors.
func (r *Report) Regressions() int {
	n := len(r.NewFlags) + len(r.NewErrors)
	for _, row := range r.Rows {
		if row.Verdict == Regression {
			n++
		}
	}
	return n
}

// Improvements counts the rows that improved.
func (r *Report) Improvements() int {
	n := 0
	for _, row := range r.Rows {
		if row.Verdict == Improvement {
			n++
		}
	}
	return n
}

// RegressionError is returned by a gate when a comparison found
// regressions; ExitCode makes the CLI exit with 1, which CI reads as
// "slower", distinct from 2 (bad input).
type RegressionError struct{ N int }

func (e *RegressionError) Error() string {
	if e.N == 1 {
		return "1 regression"
	}
	return fmt.Sprintf("%d regressions", e.N)
}

// ExitCode returns 1.
func (e *RegressionError) ExitCode() int { return 1 }

// Input errors: a comparison that cannot be made. Callers answer them
// with the bad-input exit code.
var (
	// ErrNothingInCommon: OLD and NEW share no measurement.
	ErrNothingInCommon = errors.New("nothing in common between OLD and NEW")
	// ErrTooFewSamples: a measurement has fewer repetitions than
	// Options.MinSamples.
	ErrTooFewSamples = errors.New("too few samples")
	// ErrNoReference: the reference adapter of --normalize is missing or
	// unusable for some measurement.
	ErrNoReference = errors.New("cannot normalise")
	// ErrOptions: the options are invalid.
	ErrOptions = errors.New("invalid options")
)
