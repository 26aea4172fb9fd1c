package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/fileio"
	"github.com/cachebench/cachebench/internal/report"
)

func newMergeCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "merge FILE... [-o OUT]",
		Short: "Join runs of one suite made in separate processes into one JSON result",
		Long: `merge reads run results (cachebench JSON or the gobench text format) of the same
suite on the same CPU model and writes one JSON result whose measurements hold the
samples of every file, in the order given. Two files of the same contents (the same
file twice) are refused: their samples would count twice.

Repetitions inside one process share its memory layout, which moves some lookup
times by tens of percent from one process to the next. Compare several processes
per side, merged, and that spread is in the samples instead of reading as a change.`,
		Example: `  for i in 1 2 3 4 5; do cachebench run --count 2 --format json -o run$i.json; done
  cachebench merge run1.json run2.json run3.json run4.json run5.json -o new.json
  cachebench compare old.json new.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "" {
				if _, err := checkOutput("merge: -o", output); err != nil {
					return err
				}
			}
			results, err := readResultFiles(cmd.Context(), "merge", args, true)
			if err != nil {
				return err
			}
			merged, err := report.UntilDone(cmd.Context(), func() (*report.Result, error) { return report.Merge(results...) })
			if cmd.Context().Err() != nil {
				return fmt.Errorf("merge: %w", cmd.Context().Err())
			}
			if err != nil {
				return usageErrorf("%w (files %v)", err, args)
			}
			// Nothing is written after Ctrl-C: the encoding fails at its
			// next write, and fileio discards the temp file of -o.
			write := func(w io.Writer) error {
				if err := report.WriteJSON(fileio.CancelWriter(cmd.Context(), w), merged); err != nil {
					return err
				}
				return cmd.Context().Err()
			}
			if output == "" {
				return write(cmd.OutOrStdout())
			}
			if err := fileio.WriteFile(cmd.Context(), output, write); err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the merged JSON to this file instead of stdout")
	return cmd
}
