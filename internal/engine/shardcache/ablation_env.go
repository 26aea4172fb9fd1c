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

// ablationNames maps CACHEBENCH_ABLATE's names to mechanisms.
var ablationNames = map[string]ablation{
	"sketch": ablSketch, "climber": ablClimber, "climb-frequency": ablClimbFreq,
	"climb-recency": ablClimbRec,
	"read-contest":  ablReadContest, "trial": ablTrial, "door-check": ablDoorCheck,
	"door-down": ablDoorDown, "seldom": ablSeldom, "ghost": ablGhost,
	"young": ablYoung, "keep-read": ablKeepRead,
	"fill": ablFill, "door-contest": ablDoorContest, "warm": ablWarm,
	"unread-point": ablUnreadPoint,
}
