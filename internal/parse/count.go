package parse

import (
	"fmt"
	"strconv"
	"strings"
)

// A count is a number of things (keys, operations, entries, requests),
// written as digits ("1000000", "1_000_000"), with a decimal multiplier
// ("1K" = 1,000, "1M" = 1,000,000, "1G" = 1,000,000,000; case-insensitive,
// "2.5M" allowed when the product is whole), or in E notation ("1e6").
// Multipliers are powers of 1000, not 1024: a count is not a size, and
// "1M keys" means a million.
var countUnits = []unit{{"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12}}

// MaxCount bounds Count: above any count a command takes, so that each
// command's own range check names the flag, and below int64 overflow.
const MaxCount = 1 << 62

// Count parses a non-negative count (see the comment on countUnits).
func Count(s string) (int64, error) {
	t := strings.TrimSpace(s)
	bad := func(why string) (int64, error) {
		return 0, fmt.Errorf("count %q: %s (a whole number such as 1000000, 1_000_000, 1M, 2.5K or 1e6)", s, why)
	}
	if t == "" {
		return bad("no number")
	}
	num, mult := cutUnit(t, countUnits)
	low := strings.ToLower(num)
	if num == "" {
		return bad("no number")
	}
	if strings.HasPrefix(num, "+") || strings.HasPrefix(num, "_") || strings.HasSuffix(num, "_") || strings.Contains(num, "__") {
		return bad("not a number")
	}
	digits := strings.ReplaceAll(num, "_", "")
	if _, err := strconv.ParseInt(digits, 10, 64); err != nil && (strings.Contains(num, "_") || strings.ContainsAny(low, "xp")) {
		return bad("not a number") // underscores group digits only; no hex
	}
	n, why := scale(digits, mult, MaxCount, "")
	if why != "" {
		return bad(why)
	}
	return n, nil
}

// CountValue is a flag value holding a count read by Count, for flag
// packages that take a Set/String/Type value (pflag.Value): the one way
// every command reads --keys, --ops, --entries, --requests and the like.
type CountValue[T int | int64] struct {
	p *T
}

// NewCountValue sets *p to def and returns the value that Set updates.
func NewCountValue[T int | int64](p *T, def T) *CountValue[T] {
	*p = def
	return &CountValue[T]{p: p}
}

// Set parses s with Count; a count T cannot hold is refused.
func (c *CountValue[T]) Set(s string) error {
	n, err := Count(s)
	if err != nil {
		return err
	}
	if int64(T(n)) != n {
		return fmt.Errorf("count %q: too large for this platform", s)
	}
	*c.p = T(n)
	return nil
}

// String is the count in digits.
func (c *CountValue[T]) String() string {
	if c == nil || c.p == nil {
		return "0"
	}
	return strconv.FormatInt(int64(*c.p), 10)
}

// Type names the value in help texts.
func (c *CountValue[T]) Type() string { return "count" }
