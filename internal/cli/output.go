package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
)

// formats are the output formats of the measuring commands.
var formats = []string{"text", "markdown", "json", "gobench"}

// checkFormat refuses a --format value that is not in valid.
func checkFormat(format string, valid []string) error {
	if slices.Contains(valid, format) {
		return nil
	}
	return fmt.Errorf("unknown --format %q (valid: %s)", format, strings.Join(valid, ", "))
}

// writeResult renders res in format to path (atomically) or to stdout.
func writeResult(stdout io.Writer, path, format string, res *report.Result) error {
	render := func(w io.Writer) error {
		switch format {
		case "json":
			return report.WriteJSON(w, res)
		case "gobench":
			return report.WriteGoBench(w, res)
		case "text":
			return report.WriteText(w, res)
		default:
			return report.WriteMarkdown(w, res)
		}
	}
	if path == "" {
		return render(stdout)
	}
	if err := report.WriteFileAtomic(path, render); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// publicNote names the public packages that serve the adapters measured
// which are cachebench's own engines (engine.Factory.Public), or returns
// "" when none is: a reader of the table should know whether the winner
// is something their code can import.
func publicNote(adapters []string) string {
	var parts []string
	for _, n := range adapters {
		if f, err := engine.Lookup(n); err == nil && f.Public != "" {
			parts = append(parts, n+" is importable as "+f.Public)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "cachebench: note: " + strings.Join(parts, "; ") +
		" (the same code these figures measure); every other adapter measures the library that `cachebench list` names."
}
