package cli

import (
	"fmt"
	"io"
	"runtime"
	"sort"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/machine"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and revision this binary was built from, its toolchain and build tags",
		Long: `version prints what the go command stamped into this binary: the module version
and the vcs revision it was built from (results record the same revision), the Go
toolchain, cgo and build tags, and the adapters this build leaves out.

go install github.com/cachebench/cachebench/cmd/cachebench@v0.1.0 prints v0.1.0. go
install ./cmd/cachebench (or go build) in a clone stamps the revision, and the version
of a tagged commit or a pseudo-version after it; go run does not, nor does a build
with -buildvcs=false: then it prints the release the tree descends from, marked
(devel), the revision is unknown and results record none.`,
		Example: "  cachebench version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			writeVersion(cmd.OutOrStdout(), machine.Binary(), engine.Absent())
			return nil
		},
	}
}

// release is the newest release this source tree is, or descends from:
// what version prints when the go command stamped no module version (go
// run, a build with -buildvcs=false, a toolchain that stamps none), marked
// as a development build. CHANGELOG.md's newest release section names the
// same version.
const release = "v0.1.0"

func writeVersion(w io.Writer, b machine.Build, absent map[string]string) {
	version := b.Version
	if version == "" || version == "(devel)" {
		version = release + " (devel)"
	}
	fmt.Fprintf(w, "cachebench %s\n", version)
	switch {
	case b.Revision != "" && b.Time != "":
		fmt.Fprintf(w, "revision   %s (commit time %s)\n", b.Revision, b.Time)
	case b.Revision != "":
		fmt.Fprintf(w, "revision   %s\n", b.Revision)
	default:
		fmt.Fprintln(w, "revision   unknown: not stamped (go run, or -buildvcs=false); go install ./cmd/cachebench stamps it")
	}
	cgo := "off"
	if b.CGO == "1" {
		cgo = "on"
	}
	tags := b.Tags
	if tags == "" {
		tags = "none"
	}
	fmt.Fprintf(w, "built with %s %s/%s, cgo %s, tags %s\n", b.GoVersion, runtime.GOOS, runtime.GOARCH, cgo, tags)
	names := make([]string, 0, len(absent))
	for n := range absent {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "left out   %s: %s\n", n, absent[n])
	}
}
