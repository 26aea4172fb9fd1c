package chart

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cachebench/cachebench/internal/report"
)

// ChartsDir is the folder, inside a results folder, that holds the charts
// ForResults draws.
const ChartsDir = "charts"

// ForResults draws the charts of every `run` result (*.json) in dir into
// dir/charts and returns a markdown section that embeds the PNGs (linking
// the SVGs), with paths relative to dir, for the folder's README. It
// reads the results as every result file is read (stops on ctx).
func ForResults(ctx context.Context, dir string) (string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return "", fmt.Errorf("list results in %s: %w", dir, err)
	}
	sort.Strings(names)
	out := filepath.Join(dir, ChartsDir)
	var b strings.Builder
	for _, path := range names {
		res, err := report.ReadResultFile(ctx, path)
		if err != nil {
			return "", err
		}
		if res.Kind == report.KindGCPause {
			continue
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return "", fmt.Errorf("create %s: %w", out, err)
		}
		stem := strings.TrimSuffix(filepath.Base(path), ".json")
		files, err := Run(res, out, Slug(stem))
		if err != nil {
			return "", err
		}
		for _, f := range files {
			if !strings.HasSuffix(f, ".png") {
				continue
			}
			rel := ChartsDir + "/" + filepath.Base(f)
			svg := strings.TrimSuffix(rel, ".png") + ".svg"
			fmt.Fprintf(&b, "[![%s](%s)](%s)\n\n", strings.TrimSuffix(filepath.Base(f), ".png"), rel, svg)
		}
	}
	if b.Len() == 0 {
		return "", nil
	}
	return "\n## Charts\n\nDrawn by `cachebench report` from the run results above: sampled lookup latency " +
		"percentiles per adapter at the lowest GOMAXPROCS, and throughput against GOMAXPROCS where a run used " +
		"several (click a chart for its SVG).\n\n" + b.String(), nil
}
