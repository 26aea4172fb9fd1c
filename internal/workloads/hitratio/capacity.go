package hitratio

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// KeyBytes is the size of every replayed key: the object ID, 8 bytes
// little-endian.
const KeyBytes = 8

// Capacity is one cache size of a sweep: exactly one field is set.
type Capacity struct {
	// Fraction of the trace's distinct objects, in (0, 1].
	Fraction float64 `json:"fraction,omitempty"`
	// Entries is an absolute entry budget.
	Entries int `json:"entries,omitempty"`
	// Bytes is an absolute memory budget.
	Bytes int64 `json:"bytes,omitempty"`
}

// String gives the capacity as written on the command line.
func (c Capacity) String() string {
	switch {
	case c.Entries > 0:
		return strconv.Itoa(c.Entries)
	case c.Bytes > 0:
		return strconv.FormatInt(c.Bytes, 10) + "B"
	}
	return strconv.FormatFloat(c.Fraction, 'g', -1, 64)
}

var byteUnits = []struct {
	suffix string
	mult   int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

// ParseCapacities parses a comma-separated list: a number with a decimal
// point is a fraction of the distinct objects (0 < f <= 1), an integer is
// an entry count, and a number ending in B, KiB, MiB or GiB is a byte
// budget.
func ParseCapacities(s string) ([]Capacity, error) {
	var out []Capacity
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		c, err := parseCapacity(item)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("capacity list %q is empty", s)
	}
	return out, nil
}

func parseCapacity(item string) (Capacity, error) {
	for _, u := range byteUnits {
		if num, ok := strings.CutSuffix(item, u.suffix); ok {
			n, err := strconv.ParseFloat(num, 64)
			if err != nil || n <= 0 || n*float64(u.mult) > math.MaxInt64/2 {
				return Capacity{}, fmt.Errorf("capacity %q: want a positive byte size such as 64MiB", item)
			}
			return Capacity{Bytes: int64(n * float64(u.mult))}, nil
		}
	}
	if !strings.ContainsAny(item, ".eE") {
		n, err := strconv.Atoi(item)
		if err != nil || n <= 0 {
			return Capacity{}, fmt.Errorf("capacity %q: want a fraction in (0,1], a positive entry count or a byte size", item)
		}
		return Capacity{Entries: n}, nil
	}
	f, err := strconv.ParseFloat(item, 64)
	if err != nil || !(f > 0 && f <= 1) {
		return Capacity{}, fmt.Errorf("capacity %q: a fraction of the distinct keys must be in (0,1]", item)
	}
	return Capacity{Fraction: f}, nil
}

// Budget is what every cache of one sweep point gets.
type Budget struct {
	// Entries is the entry budget (entry-bounded caches and OPT).
	Entries int `json:"entries"`
	// Bytes is the memory budget of byte-bounded caches.
	Bytes int64 `json:"bytes"`
	// Fraction is Entries over the distinct objects of the trace.
	Fraction float64 `json:"fraction"`
}

// BytesPerEntry is the memory one cached object is allowed under the
// project's budget rule: mean object size + key + workloads.EntryOverhead,
// the allowance of workloads.MemoryBudget.
func BytesPerEntry(s trace.Summary) float64 {
	return s.MeanObjectSize() + KeyBytes + workloads.EntryOverhead
}

// Resolve turns c into the budget of trace s. Entries and bytes convert
// through BytesPerEntry; unlike workloads.MemoryBudget no rounding to whole
// MiB is made, so small capacities stay small.
func (c Capacity) Resolve(s trace.Summary) Budget {
	per := BytesPerEntry(s)
	var b Budget
	switch {
	case c.Entries > 0:
		b.Entries = c.Entries
		b.Bytes = int64(math.Ceil(float64(c.Entries) * per))
	case c.Bytes > 0:
		b.Bytes = c.Bytes
		b.Entries = max(int(float64(c.Bytes)/per), 1)
	default:
		b.Entries = max(int(math.Ceil(c.Fraction*float64(s.Distinct))), 1)
		b.Bytes = int64(math.Ceil(float64(b.Entries) * per))
	}
	b.Fraction = float64(b.Entries) / float64(max(s.Distinct, 1))
	return b
}
