package hitratio

import (
	"fmt"
	"math"
	"strconv"

	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// KeyBytes is the size of every replayed key: the object ID, 8 bytes
// little-endian.
const KeyBytes = 8

// Capacity is one cache size of a sweep: exactly one field is set.
type Capacity struct {
	// Fraction of the trace's distinct objects, in (0, 1] (1 written 100%).
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
	if c.Fraction == 1 {
		return "100%" // "1" would read back as one entry
	}
	return strconv.FormatFloat(c.Fraction, 'g', -1, 64)
}

// CapacityHelp says how ParseCapacities reads a capacity; the flag help
// repeats it.
const CapacityHelp = `an integer is an entry count (1 is one entry), a number below 1 or a
percentage is a fraction of the trace's distinct objects (0.05, 5%, 100%), and a
number with a unit is a byte budget (64MiB, 1GB, 1TiB: K/KiB = 1024, KB = 1000)`

// ParseCapacities parses a comma-separated list (parse.List: no empty
// items) of capacities, each read as CapacityHelp says.
func ParseCapacities(s string) ([]Capacity, error) {
	items, err := parse.List(s)
	if err != nil {
		return nil, err
	}
	var out []Capacity
	for _, item := range items {
		c, err := parseCapacity(item)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func parseCapacity(item string) (Capacity, error) {
	if parse.HasUnit(item) {
		n, err := parse.Size(item)
		if err != nil || n <= 0 {
			return Capacity{}, fmt.Errorf("capacity %q: want a positive byte size such as 64MiB", item)
		}
		return Capacity{Bytes: n}, nil
	}
	if n, err := strconv.ParseInt(item, 10, 64); err == nil {
		if n <= 0 || n > math.MaxInt32 {
			return Capacity{}, fmt.Errorf("capacity %q: an entry count must be in 1..%d", item, math.MaxInt32)
		}
		return Capacity{Entries: int(n)}, nil
	}
	f, err := parse.Fraction(item)
	if err != nil {
		return Capacity{}, fmt.Errorf("capacity %w", err)
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
// the allowance of workloads.MemoryBudget. The mean counts at most
// MaxValue, the largest value a replay stores: a trace whose sizes say
// 4 GiB would otherwise give a byte-bounded cache gigabytes per entry of
// 1 MiB values (a 3-line trace reached 6.8 GB).
func BytesPerEntry(s trace.Summary) float64 {
	return min(s.MeanObjectSize(), MaxValue) + KeyBytes + workloads.EntryOverhead
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
