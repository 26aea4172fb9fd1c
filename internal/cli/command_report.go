package cli

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/fileio"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/report/chart"
)

// reportFormats are the formats report prints result files in.
var reportFormats = []string{"text", "markdown", "gobench"}

func newReportCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "report [DIR | FILE...]",
		Short: "Rebuild a results folder's README.md, or print result files as tables",
		Long: `report DIR reads every *.json result in DIR (default "results") and rewrites
DIR/README.md: one section per CPU model, run tables then gc-pause tables, each
labelled with its file, date and git revision. A file that is not a readable
cachebench result stops it, and the README is left as it was.

report FILE... prints the given results (JSON, or the gobench format) as tables
on stdout, in --format.`,
		Example: `  cachebench report
  cachebench report results
  cachebench report results/my-machine.json --format text
  cachebench report results/my-machine.json --format gobench | benchstat -col '/impl@(map shardcache fastcache)' -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, reportFormats); err != nil {
				return usageError{err}
			}
			return runReport(cmd.Context(), cmd.OutOrStdout(), args, format, cmd.Flags().Changed("format"))
		},
	}
	cmd.Flags().StringVar(&format, "format", "markdown", "format of the tables printed for result files: text, markdown or gobench")
	return cmd
}

func runReport(ctx context.Context, stdout io.Writer, args []string, format string, formatSet bool) error {
	if len(args) == 0 {
		args = []string{"results"}
	}
	var dirs, files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return usageErrorf("report: %w", err)
		}
		if st.IsDir() {
			dirs = append(dirs, a)
		} else {
			files = append(files, a)
		}
	}
	if len(dirs) > 0 {
		if len(args) > 1 {
			return usageErrorf("report: give one directory, or result files, not both (directory %s)", dirs[0])
		}
		if formatSet {
			return usageErrorf("report: --format applies to result files; a directory gets %s", report.IndexName)
		}
		if err := report.BuildIndex(ctx, dirs[0]); err != nil {
			var ie *report.InputError
			if errors.As(err, &ie) {
				return usageErrorf("report: %w", err)
			}
			return fmt.Errorf("report: %w", err)
		}
		if err := appendCharts(ctx, dirs[0]); err != nil {
			return fmt.Errorf("report: charts: %w", err)
		}
		fmt.Fprintln(stdout, filepath.Join(dirs[0], report.IndexName))
		return nil
	}
	results, err := readResultFiles(ctx, "report", files, false)
	if err != nil {
		return err
	}
	// Tables of a large result take a while to write: Ctrl-C stops them
	// at the next write.
	stdout = fileio.CancelWriter(ctx, stdout)
	var werr error
	switch format {
	case "text":
		werr = report.WriteText(stdout, results...)
	case "gobench":
		for _, r := range results {
			if werr = report.WriteGoBench(stdout, r); werr != nil {
				break
			}
		}
	default:
		werr = report.WriteMarkdown(stdout, results...)
	}
	if werr != nil {
		return fmt.Errorf("report: write the tables: %w", werr)
	}
	return nil
}

// readResultFiles reads result files (JSON or gobench) for command cmd
// through fileio.OpenInput (a FIFO, such as bash's <(...), gives up on
// Ctrl-C; a device or socket is refused); an unreadable one is a usage
// error (exit 2) naming it. With distinct, two files of the same contents
// (by SHA-256: the same file twice, a copy, a link) are refused.
func readResultFiles(ctx context.Context, cmd string, paths []string, distinct bool) ([]*report.Result, error) {
	results := make([]*report.Result, 0, len(paths))
	seen := map[[sha256.Size]byte]string{}
	for _, p := range paths {
		data, err := fileio.ReadInput(ctx, p, report.MaxResultFile)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, usageErrorf("%s: %w", cmd, &report.InputError{Path: p, Err: err})
		}
		if distinct {
			sum := sha256.Sum256(data)
			if first, ok := seen[sum]; ok {
				return nil, usageErrorf("%s: %s and %s have the same contents (SHA-256 %x): merging a result with itself would count its samples twice", cmd, first, p, sum[:6])
			}
			seen[sum] = p
		}
		r, err := report.ParseResultContext(ctx, data, p)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%s: %s: %w", cmd, p, ctx.Err())
			}
			return nil, usageErrorf("%s: %w", cmd, err)
		}
		results = append(results, r)
	}
	return results, nil
}

// appendCharts draws the charts of the run results in dir and adds a
// section embedding them to the README that BuildIndex just wrote.
func appendCharts(ctx context.Context, dir string) error {
	section, err := chart.ForResults(ctx, dir)
	if err != nil || section == "" {
		return err
	}
	index := filepath.Join(dir, report.IndexName)
	old, err := os.ReadFile(index)
	if err != nil {
		return err
	}
	return report.WriteFileAtomic(index, func(w io.Writer) error {
		if _, err := w.Write(old); err != nil {
			return err
		}
		_, err := io.WriteString(w, section)
		return err
	})
}
