// Package parse reads the values a user types into flags, one rule each,
// so that a list, a size or a fraction means the same in every command:
//
//   - List: comma-separated items, spaces around them ignored; an empty
//     item ("a,,b", "a,", "") is an error, never silently skipped.
//   - Size: a byte count with an optional unit, GNU coreutils style: B;
//     K, KiB = 1024; KB = 1000; likewise M, G, T (case-insensitive, "1.5GiB"
//     allowed when it is a whole number of bytes).
//   - Fraction: a share of a whole, written below 1 ("0.05") or as a
//     percentage ("5%", "100%"). An integer ("1") is not a fraction: the
//     commands that take both read it as a count, so "1" and "1.0" never
//     mean two different things.
//   - Rate: operations per second, with a decimal multiplier (k, M, G: 50k
//     is 50,000) and an optional "/s"; Rates is a list of them (rate.go).
package parse

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// List splits a comma-separated list. Spaces around items are dropped; an
// empty item is an error naming its position.
func List(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty list")
	}
	parts := strings.Split(s, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("list %q: item %d is empty", s, i+1)
		}
		parts[i] = p
	}
	return parts, nil
}

// unit is a suffix that multiplies the number before it.
type unit struct {
	suffix string
	mult   float64
}

// cutUnit splits t into its number and the multiplier of the first of
// units it ends in (case-insensitive), 1 for none.
func cutUnit(t string, units []unit) (num string, mult float64) {
	low := strings.ToLower(t)
	for _, u := range units {
		if strings.HasSuffix(low, u.suffix) {
			return strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
		}
	}
	return t, 1
}

var units = []unit{
	// Longest suffixes first, so "KiB" is not read as "B".
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40},
	{"b", 1},
}

// MaxSize bounds Size: far above any disk or memory, far below overflow
// when sizes are added or multiplied by small counts.
const MaxSize = 1 << 60

// Size parses a byte size (see the package doc).
func Size(s string) (int64, error) {
	num, mult := cutUnit(strings.TrimSpace(s), units)
	bad := func(why string) (int64, error) {
		return 0, fmt.Errorf("size %q: %s (a byte count such as 4096, 64KiB, 1.5GB or 1TiB)", s, why)
	}
	if num == "" {
		return bad("no number")
	}
	n, why := scale(num, mult, MaxSize, " bytes")
	if why != "" {
		return bad(why)
	}
	return n, nil
}

// scale reads num × mult as a whole number in [0, limit], for Size and
// Count; why is "" on success, else what is wrong ("negative", "above
// LIMIT" followed by unit, "not a number", "not a whole number" + unit).
func scale(num string, mult, limit float64, unit string) (n int64, why string) {
	if n, err := strconv.ParseInt(num, 10, 64); err == nil {
		switch {
		case n < 0:
			return 0, "negative"
		case float64(n)*mult > limit:
			return 0, fmt.Sprintf("above %d%s", int64(limit), unit)
		}
		return n * int64(mult), ""
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, "not a number"
	}
	switch v := f * mult; {
	case v < 0 || math.Signbit(v):
		return 0, "negative"
	case v > limit:
		return 0, fmt.Sprintf("above %d%s", int64(limit), unit)
	case v != math.Trunc(v):
		return 0, "not a whole number" + strings.TrimSuffix(" of"+unit, " of")
	default:
		return int64(v), ""
	}
}

// HasUnit reports whether s ends in a size unit, so that a command taking
// either a count or a size can tell "64" (a count) from "64B" (a size).
func HasUnit(s string) bool {
	low := strings.ToLower(strings.TrimSpace(s))
	return low != "" && low[len(low)-1] >= 'a' && low[len(low)-1] <= 'z' && !strings.HasSuffix(low, "e")
}

// ErrInteger is wrapped by Fraction's error for an integer: a count, not
// a fraction.
var ErrInteger = errors.New("an integer is a count, not a fraction")

// Fraction parses a fraction in (0, 1): "0.05" or a percentage in
// (0%, 100%]. An integer is refused with an error wrapping ErrInteger.
func Fraction(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(t, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(v > 0 && v <= 100) {
			return 0, fmt.Errorf("%q: a percentage must be in (0%%, 100%%]", s)
		}
		return v / 100, nil
	}
	if _, err := strconv.ParseInt(t, 10, 64); err == nil {
		return 0, fmt.Errorf("%q: %w (write a fraction below 1 such as 0.1, or a percentage such as 10%% or 100%%)", s, ErrInteger)
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0 && v < 1) {
		return 0, fmt.Errorf("%q: a fraction must be below 1 and above 0, such as 0.1 (write 100%% for the whole)", s)
	}
	return v, nil
}
