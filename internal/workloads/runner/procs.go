package runner

import (
	"fmt"
	"strconv"

	"github.com/cachebench/cachebench/internal/parse"
)

// MaxProcs bounds a GOMAXPROCS value a run accepts.
const MaxProcs = 1024

// ParseProcs parses a comma-separated list of GOMAXPROCS values ("1,2,4").
// The error names the --cpu flag, which is where such lists come from.
func ParseProcs(s string) ([]int, error) {
	items, err := parse.List(s)
	if err != nil {
		return nil, fmt.Errorf("--cpu: %w", err)
	}
	var out []int
	for _, p := range items {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > MaxProcs {
			return nil, fmt.Errorf("--cpu %q: each value must be an integer in 1..%d", s, MaxProcs)
		}
		out = append(out, n)
	}
	return out, nil
}
