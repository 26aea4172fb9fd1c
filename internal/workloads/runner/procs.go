package runner

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxProcs bounds a GOMAXPROCS value a run accepts.
const MaxProcs = 1024

// ParseProcs parses a comma-separated list of GOMAXPROCS values ("1,2,4").
// The error names the --cpu flag, which is where such lists come from.
func ParseProcs(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > MaxProcs {
			return nil, fmt.Errorf("--cpu %q: each value must be an integer in 1..%d", s, MaxProcs)
		}
		out = append(out, n)
	}
	return out, nil
}
