package cli

import (
	"fmt"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/workloads"
)

func newListCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Short:   "List adapters and workloads, one line of description each",
		Example: "  cachebench list",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ADAPTERS\tKIND\tDESCRIPTION")
			for _, f := range engine.All() {
				desc := f.Description
				if f.Public != "" {
					desc += " (import " + f.Public + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, f.Kind, desc)
			}
			absent := engine.Absent()
			for _, name := range sortedKeys(absent) {
				fmt.Fprintf(tw, "%s\t\tnot in this build: %s\n", name, absent[name])
			}
			fmt.Fprintln(tw, "\t\t")
			fmt.Fprintln(tw, "SCENARIOS\t\tDESCRIPTION")
			for _, name := range sortedKeys(workloads.Scenarios) {
				fmt.Fprintf(tw, "%s\t\t%s\n", name, workloads.Scenarios[name])
			}
			fmt.Fprintln(tw, "\t\t")
			fmt.Fprintln(tw, "DISTRIBUTIONS\t\tDESCRIPTION")
			for _, name := range sortedKeys(workloads.Dists) {
				fmt.Fprintf(tw, "%s\t\t%s\n", name, workloads.Dists[name])
			}
			fmt.Fprintln(tw, "\t\t")
			fmt.Fprintln(tw, "WORKLOADS (--workload)\t\tMEANING")
			for _, name := range workloads.Names() {
				meaning := "scenario/distribution"
				if a := workloads.Alias(name); a != "" {
					meaning = "alias of " + a
				} else if d, ok := workloads.Presets[name]; ok {
					meaning = "preset: " + d
				} else if name == workloads.InsertLookup {
					meaning = "insert every key, then look each up once in shuffled order"
				} else if name == workloads.ReadVector {
					meaning = workloads.Scenarios[workloads.ReadVector]
				}
				fmt.Fprintf(tw, "%s\t\t%s\n", name, meaning)
			}
			return tw.Flush()
		},
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
