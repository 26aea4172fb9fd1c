package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/cachebench/cachebench/internal/engine"
)

// takeFloor removes the floor probe's row from g and returns it (nil when
// the run has none). A run of the probe alone keeps it as its table.
func takeFloor(g *group) *row {
	for i, r := range g.rows {
		if r.adapter == engine.ProbeName && len(g.rows) > 1 {
			g.rows = append(g.rows[:i:i], g.rows[i+1:]...)
			return r
		}
	}
	return nil
}

// floorLine is the harness floor printed under a group's tables: the null
// probe's time per operation in each phase, and what share it is of the
// fastest unflagged adapter's time in that phase.
func floorLine(floor *row, rows []*row) string {
	if floor == nil {
		return ""
	}
	var parts []string
	for _, p := range floor.order {
		v := floor.mean(p, MetricNsPerOp)
		if math.IsNaN(v) {
			continue
		}
		part := string(p) + " " + fmtNs(v)
		best, bestName := math.Inf(1), ""
		for _, r := range rows {
			if r.flagged(p) {
				continue
			}
			if x := r.mean(p, MetricNsPerOp); x < best {
				best, bestName = x, r.adapter
			}
		}
		if bestName != "" && best > 0 {
			part += fmt.Sprintf(" (%.1f%% of the fastest, %s)", 100*v/best, bestName)
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	line := "Harness floor (the null probe, which stores nothing, through the same loop; part of every figure above): " + strings.Join(parts, " · ") + "."
	if flags := floor.flags(); len(flags) > 0 {
		var texts []string
		for _, f := range flags {
			texts = append(texts, f.Text())
		}
		line += " The probe itself was flagged (" + strings.Join(texts, ", ") + "): the harness is broken, not a cache."
	}
	return line
}
