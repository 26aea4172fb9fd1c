//go:build ablation

package shardcache

import (
	"fmt"
	"os"
	"strings"
)

// A binary built with the "ablation" tag turns off the mechanisms named,
// comma-separated, in CACHEBENCH_ABLATE (see ablation.go).
func init() {
	v := os.Getenv("CACHEBENCH_ABLATE")
	if v == "" {
		return
	}
	for _, name := range strings.Split(v, ",") {
		m, ok := ablationNames[strings.TrimSpace(name)]
		if !ok {
			fmt.Fprintf(os.Stderr, "CACHEBENCH_ABLATE: unknown mechanism %q\n", name)
			os.Exit(2)
		}
		ablated |= m
	}
}
