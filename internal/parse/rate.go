package parse

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxRate bounds Rate: the runner's clock counts nanoseconds, so no
// schedule can give operations intended starts closer than one
// nanosecond apart. The limit a given machine can keep to is lower (two
// clock reads per operation); the commands check that one against the
// measured timer cost.
const MaxRate = 1e9

// rateUnits are the decimal multipliers of a rate: k (or K) a thousand,
// M a million, G a billion. A lower-case m is refused: it reads as milli.
var rateUnits = []struct {
	suffix string
	mult   float64
}{{"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}}

// Rate parses an operation rate in operations per second: a positive
// number with an optional decimal multiplier (k or K, M, G) and an
// optional "/s": "500", "50k", "2.5M", "1M/s". It refuses zero, negative
// and non-finite rates and those above MaxRate.
func Rate(s string) (float64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSpace(strings.TrimSuffix(t, "/s"))
	bad := func(why string) (float64, error) {
		return 0, fmt.Errorf("rate %q: %s (operations per second, such as 500, 50k, 2.5M or 1M/s)", s, why)
	}
	num, mult := t, 1.0
	for _, u := range rateUnits {
		if strings.HasSuffix(t, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	if strings.HasSuffix(t, "m") {
		return bad("m would be milli; write M for a million")
	}
	if num == "" {
		return bad("no number")
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return bad("not a number")
	}
	switch v *= mult; {
	case v <= 0:
		return bad("must be above 0")
	case v > MaxRate:
		return bad(fmt.Sprintf("above %s/s, one operation per nanosecond, which the clock cannot schedule", FormatRate(MaxRate)))
	}
	return v, nil
}

// Rates parses a comma-separated list of rates (List, then Rate for each
// item), in the order given; a rate given twice is an error.
func Rates(s string) ([]float64, error) {
	items, err := List(s)
	if err != nil {
		return nil, err
	}
	out := make([]float64, 0, len(items))
	seen := map[float64]bool{}
	for _, it := range items {
		r, err := Rate(it)
		if err != nil {
			return nil, err
		}
		if seen[r] {
			return nil, fmt.Errorf("rate %q given twice", it)
		}
		seen[r] = true
		out = append(out, r)
	}
	return out, nil
}

// FormatRate writes a rate the way Rate reads it, with the largest
// multiplier that leaves a whole or short decimal number: 50000 is "50k",
// 1500000 is "1.5M", 750 is "750".
func FormatRate(r float64) string {
	for _, u := range []struct {
		suffix string
		div    float64
	}{{"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
		if r >= u.div {
			return strconv.FormatFloat(r/u.div, 'g', 4, 64) + u.suffix
		}
	}
	return strconv.FormatFloat(r, 'g', 4, 64)
}
