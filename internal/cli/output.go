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

// internalNote says which of the adapters measured are cachebench's own
// engines, which another module cannot import (engine.Factory.Internal),
// or "" when none is: a reader of the table should not pick a winner it
// cannot use.
func internalNote(adapters []string) string {
	var own []string
	for _, n := range adapters {
		if f, err := engine.Lookup(n); err == nil && f.Internal {
			own = append(own, n)
		}
	}
	if len(own) == 0 {
		return ""
	}
	what := strings.Join(own, " and ") + " are cachebench's own engines (internal/engine/...): another module cannot import them"
	if len(own) == 1 {
		what = own[0] + " is cachebench's own engine (internal/engine/" + own[0] + "): another module cannot import it"
	}
	return "cachebench: note: " + what + " in this version; every other adapter measures the library that `cachebench list` names."
}
