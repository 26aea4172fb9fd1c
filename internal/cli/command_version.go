package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the cachebench version and the Go toolchain it was built with",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi, ok := debug.ReadBuildInfo()
			if !ok {
				return fmt.Errorf("version: no build information in this binary")
			}
			version := bi.Main.Version
			rev := ""
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" {
					rev = s.Value
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "cachebench %s", version)
			if rev != "" {
				fmt.Fprintf(cmd.OutOrStdout(), " (%s)", rev)
			}
			fmt.Fprintf(cmd.OutOrStdout(), " %s\n", bi.GoVersion)
			return nil
		},
	}
}
