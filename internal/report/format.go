package report

import (
	"math"
	"strconv"
	"strings"
)

// Human-readable number formatting for tables. Every figure is shown with
// about three significant digits: more would suggest a precision that
// run-to-run noise does not have.

const dash = "–"

// TableDigits is how many significant digits a table shows.
const TableDigits = 3

// decimals returns how many decimals give v three significant digits,
// at most three of them: a table has no room for more.
func decimals(v float64) int { return decimalsFor(v, TableDigits, TableDigits) }

// maxDecimals bounds the decimals of the exported formatters, which show
// small counts such as 4e-05 allocs/op in full (0.0000400).
const maxDecimals = 12

// decimalsFor returns how many decimals give v the given number of
// significant digits, at most maxDec of them.
func decimalsFor(v float64, digits, maxDec int) int {
	v = math.Abs(v)
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	d := digits - 1 - int(math.Floor(math.Log10(v)))
	return min(max(d, 0), maxDec)
}

func ftoa(v float64, dec int) string {
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// A scale is a family of units for one kind of figure: pick chooses the
// unit that keeps a value readable. A duration's unit follows its figures
// after a space ("1.23 µs", "1.23 ± 0.05 µs"); a decimal prefix sticks to
// each figure ("1.63M", "1.63M ± 0.04M").
type scale struct {
	pick   func(v float64) (div float64, unit string)
	prefix bool
}

var (
	durations = scale{pick: durationUnit}
	siPrefix  = scale{pick: siUnit, prefix: true}
)

// durationUnit picks the unit that keeps ns readable.
func durationUnit(ns float64) (div float64, unit string) {
	switch a := math.Abs(ns); {
	case a >= 1e9:
		return 1e9, "s"
	case a >= 1e6:
		return 1e6, "ms"
	case a >= 1e3:
		return 1e3, "µs"
	}
	return 1, "ns"
}

// siUnit picks a decimal prefix for a rate or count.
func siUnit(v float64) (div float64, suffix string) {
	switch a := math.Abs(v); {
	case a >= 1e9:
		return 1e9, "G"
	case a >= 1e6:
		return 1e6, "M"
	case a >= 1e3:
		return 1e3, "K"
	}
	return 1, ""
}

// format formats v in the scale's unit with digits significant digits and
// at most maxDec decimals.
func (sc scale) format(v float64, digits, maxDec int) string {
	if math.IsNaN(v) {
		return dash
	}
	div, unit := sc.pick(v)
	x := v / div
	if sc.prefix {
		return ftoa(x, decimalsFor(x, digits, maxDec)) + unit
	}
	return ftoa(x, decimalsFor(x, digits, maxDec)) + " " + unit
}

// formatSD formats a mean and standard deviation in the mean's unit with
// the mean's decimals; with fewer than two values there is no deviation
// to show.
func (sc scale) formatSD(s Summary) string {
	switch {
	case s.N == 0:
		return dash
	case s.N < 2:
		return sc.format(s.Mean, TableDigits, TableDigits)
	}
	div, unit := sc.pick(s.Mean)
	x := s.Mean / div
	d := decimals(x)
	if sc.prefix {
		return ftoa(x, d) + unit + " ± " + ftoa(s.SD/div, d) + unit
	}
	return ftoa(x, d) + " ± " + ftoa(s.SD/div, d) + " " + unit
}

// FormatNs formats a duration in nanoseconds as the tables do, e.g.
// "612 ns", "1.23 µs".
func FormatNs(ns float64) string { return fmtNs(ns) }

// fmtNs formats a duration in nanoseconds, e.g. "612 ns", "1.23 µs".
func fmtNs(ns float64) string { return durations.format(ns, TableDigits, TableDigits) }

// fmtNsSD formats a mean ± sd in nanoseconds, e.g. "1.23 ± 0.05 µs".
func fmtNsSD(s Summary) string { return durations.formatSD(s) }

// fmtSI formats a rate or count with a K/M/G suffix, e.g. "1.63M".
func fmtSI(v float64) string { return siPrefix.format(v, TableDigits, TableDigits) }

// fmtSISD formats a mean ± sd rate in the mean's prefix, e.g. "1.63M ± 0.04M".
func fmtSISD(s Summary) string { return siPrefix.formatSD(s) }

// FormatBytes formats a byte count with binary prefixes, e.g. "1.50 GiB".
// It is the one byte formatter of cachebench: tables, progress lines and
// commands all use it so that a size reads the same everywhere.
func FormatBytes(b float64) string {
	if math.IsNaN(b) {
		return dash
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for math.Abs(b) >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return ftoa(b, 0) + " B"
	}
	return ftoa(b, decimals(b)) + " " + units[i]
}

// fmtSmall formats small per-op figures such as allocs/op: "0", "<0.01",
// "0.5", "2.03".
func fmtSmall(v float64) string {
	switch {
	case math.IsNaN(v):
		return dash
	case v == 0:
		return "0"
	case math.Abs(v) < 0.01:
		return "<0.01"
	case math.Abs(v) >= 100:
		return ftoa(v, 0)
	}
	s := strings.TrimRight(ftoa(v, 2), "0")
	return strings.TrimSuffix(s, ".")
}

// FormatPercent formats a ratio in [0,1] as the tables' hit ratios.
func FormatPercent(r float64) string { return fmtPercent(r) }

// fmtPercent formats a ratio in [0,1] as a percentage. Only an exact 1 is
// "100%", so a small loss never rounds away.
func fmtPercent(r float64) string {
	switch {
	case math.IsNaN(r) || r < 0:
		return dash
	case r == 1:
		return "100%"
	case r > 0.9999:
		return ">99.99%"
	}
	return ftoa(r*100, 2) + "%"
}

// fmtLimitPercent formats memory against a limit as a percentage, which
// may exceed 100% (a server using more than it was given).
func fmtLimitPercent(r float64) string {
	if math.IsNaN(r) || r <= 0 {
		return dash
	}
	return ftoa(r*100, 1) + "%"
}

// FormatInt formats an integer with thousands separators: 1,000,000.
func FormatInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// FormatFigure formats a plain number with the given significant digits
// (TableDigits in tables), never in exponent form: "0.912", "12.3",
// "12345".
func FormatFigure(v float64, digits int) string {
	if math.IsNaN(v) {
		return dash
	}
	return ftoa(v, decimalsFor(v, digits, maxDecimals))
}

// FormatMetric formats v, a figure of metric m, in m's unit with the given
// significant digits: times in ns/µs/ms/s, rates with K/M/G, hit ratios
// as percentages, B/op in bytes, anything else as a plain figure. More
// digits than TableDigits are for showing that two close figures differ.
func FormatMetric(m Metric, v float64, digits int) string {
	if math.IsNaN(v) {
		return dash
	}
	switch m {
	case MetricNsPerOp, MetricP50, MetricP99, MetricP999, MetricMax:
		return durations.format(v, digits, maxDecimals)
	case MetricOpsPerSec:
		return siPrefix.format(v, digits, maxDecimals)
	case MetricHitRatio, MetricHotHitRatio, MetricColdHitRatio:
		return FormatFigure(v*100, digits) + "%"
	case MetricBytesPerOp:
		return FormatFigure(v, digits) + " B"
	}
	return FormatFigure(v, digits)
}
