package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/fileio"
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

// checkOutput applies the output rule (fileio.ResolveOutput) to the path
// of flag before any work: a path it refuses is a usage error (exit 2).
// Every command with -o calls it first and writes through fileio.
func checkOutput(flag, path string) (fileio.Target, error) {
	t, err := fileio.ResolveOutput(path)
	if err != nil {
		return t, usageErrorf("%s: %w", flag, err)
	}
	return t, nil
}

// checkDir refuses a directory flag (--dir, --charts) that cannot take
// new files: a usage error, found before any work.
func checkDir(flag, dir string) error {
	if err := fileio.CheckDir(dir); err != nil {
		return usageErrorf("%s: %w", flag, err)
	}
	return nil
}

// interruptedName is where the partial result of an interrupted run goes
// instead of path: beside it, "NAME.interrupted.EXT", so that a complete
// result at path is never replaced by a partial one.
func interruptedName(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".interrupted" + ext
}

// writeResult renders res in format to path or stdout (writeOutput; the
// partial result of an interrupted run goes beside a complete one). It
// returns where the result went.
func writeResult(ctx context.Context, stdout, stderr io.Writer, path, format string, res *report.Result) (string, error) {
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
	return writeOutput(ctx, stdout, stderr, path, res.Interrupted, render)
}

// writeOutput writes what render writes to path by the output rule, or to
// stdout when path is "". A partial result (interrupted) goes to
// interruptedName of a regular file instead, so that a complete result
// there is never replaced, and stderr says so; a device or FIFO gets it
// as it is (the result says it was interrupted). It returns where the
// output went.
func writeOutput(ctx context.Context, stdout, stderr io.Writer, path string, interrupted bool, render func(io.Writer) error) (string, error) {
	if path == "" {
		return "stdout", render(stdout)
	}
	t, err := fileio.ResolveOutput(path)
	if err != nil {
		return "", err
	}
	if interrupted && !t.Direct {
		partial := interruptedName(t.File)
		if t, err = fileio.ResolveOutput(partial); err != nil {
			return "", err
		}
		fmt.Fprintf(stderr, "cachebench: interrupted: the partial result goes to %s; %s is left as it was\n", partial, path)
	}
	if err := t.WriteFile(ctx, render); err != nil {
		return "", fileio.WriteErr(t.File, err)
	}
	return t.File, nil
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
