package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/engine/mmapstore"
	"github.com/cachebench/cachebench/internal/workloads/records"
)

type buildOpts struct {
	input, format, output, progress, dups string
	synthetic                             int64
	dedup, skipHeader, allowEmpty         bool
	seed                                  uint64
	maxLoad                               float64
}

func newBuildCmd() *cobra.Command {
	var o buildOpts
	cmd := &cobra.Command{
		Use:   "build (--input FILE | --synthetic N) -o FILE",
		Short: "Build a cachebench mmap store file from TSV, CSV or JSON lines, or synthetic keys",
		Long: `build writes a cachebench store file (see internal/engine/mmapstore/FORMAT.md).

` + records.FormatHelp + `
--synthetic N builds the benchmark data set key_%d → val_%d for i in [0, N).

A repeated key is an error naming both lines unless --duplicates=last; an
input without pairs is refused unless --allow-empty. -o is checked before
anything is read; the file is written unnamed (Linux) or as a temp file
next to -o, fsynced and renamed over it: on a failure, Ctrl-C or kill -o
keeps its old contents. Exit 2: bad input or -o; 1: other failures.`,
		Example: `  cachebench build --input data.tsv -o data.cache
  cachebench build --input export.csv --skip-header --dedup -o data.cache
  cachebench build --input events.json --input-format jsonl -o events.cache
  cachebench build --synthetic 1000000 -o bench.cache`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBuild(cmd, &o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.input, "input", "", "input file (TSV, CSV or JSON lines)")
	f.StringVar(&o.format, "input-format", "", "input format: tsv, csv or jsonl (default: from the extension)")
	f.StringVarP(&o.output, "output", "o", "", "store file to write (replaced atomically)")
	f.Int64Var(&o.synthetic, "synthetic", 0, "build N synthetic pairs key_%d → val_%d instead of reading --input")
	f.BoolVar(&o.dedup, "dedup", false, "store each distinct value once")
	f.BoolVar(&o.skipHeader, "skip-header", false, "skip the first line (TSV) or record (CSV)")
	f.BoolVar(&o.allowEmpty, "allow-empty", false, "write an empty store when the input has no pairs")
	f.StringVar(&o.dups, "duplicates", "error", "repeated keys: error or last (keep the last value)")
	f.Uint64Var(&o.seed, "seed", 0, "hash seed (0: random)")
	f.Float64Var(&o.maxLoad, "max-load", mmapstore.DefaultBucketFill, "share of the index buckets' entry bytes in use, in (0.05, 0.9]")
	f.StringVar(&o.progress, "progress", "auto", progressHelp)
	return cmd
}

func runBuild(cmd *cobra.Command, o *buildOpts) error {
	opts, so, err := o.options()
	if err != nil {
		return err
	}
	in, err := records.OpenInput(o.input, o.format, o.skipHeader, o.synthetic)
	if err != nil {
		return usageErrorf("build: %w", err)
	}
	defer in.Close()
	prog, err := newProgress(o.progress, cmd.ErrOrStderr())
	if err != nil {
		return usageErrorf("build: %w", err)
	}
	desc := "building " + filepath.Base(o.output)
	so.Progress = func(int64) { prog.update(int(in.Done()), int(in.Total()), desc) }
	defer prog.finish()
	start := time.Now()
	res, err := mmapstore.BuildFrom(cmd.Context(), o.output, in, opts, so)
	if err != nil {
		var ie *mmapstore.InputError
		if errors.As(err, &ie) || errors.Is(err, mmapstore.ErrDestination) {
			return usageErrorf("build: %w", err)
		}
		return err
	}
	el, h := time.Since(start), res.Header
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "wrote %s: %d entries (%d inline, %d records), %d bytes (%.1f B/entry)\n", o.output, h.Entries, res.Inline, h.Records, h.FileSize, res.BytesPerEntry())
	fmt.Fprintf(w, "index: %d buckets of 128 bytes, max probe %d buckets\n", h.Slots, h.MaxProbe)
	if o.dedup {
		fmt.Fprintf(w, "dedup: %d references, %d bytes saved\n", res.DedupRefs, res.DedupSavedBytes)
	}
	fmt.Fprintf(w, "build: %s (%.0f ns/entry, fsync and rename included)\n", el.Round(time.Millisecond), float64(el.Nanoseconds())/float64(max(h.Entries, 1)))
	return nil
}

// options checks the flags and turns them into the library's options.
func (o *buildOpts) options() (mmapstore.BuildOptions, mmapstore.SourceOptions, error) {
	opts := mmapstore.BuildOptions{Dedup: o.dedup, Seed: o.seed, MaxLoad: o.maxLoad, SizeHint: int(min(o.synthetic, 1<<30))}
	so := mmapstore.SourceOptions{Name: o.input, AllowEmpty: o.allowEmpty}
	switch {
	case o.output == "":
		return opts, so, usageErrorf("build: -o/--output is required")
	case (o.input == "") == (o.synthetic == 0):
		return opts, so, usageErrorf("build: give exactly one of --input FILE and --synthetic N")
	case o.synthetic < 0:
		return opts, so, usageErrorf("build: --synthetic must be positive, got %d", o.synthetic)
	case !(o.maxLoad > 0.05 && o.maxLoad <= 0.9):
		return opts, so, usageErrorf("build: --max-load %v outside (0.05, 0.9]", o.maxLoad)
	}
	switch o.dups {
	case "error":
		opts.Duplicates = mmapstore.DupError
	case "last":
		opts.Duplicates = mmapstore.DupLastWins
	default:
		return opts, so, usageErrorf("build: unknown --duplicates %q (valid: error, last)", o.dups)
	}
	if o.input == "" {
		so.Name = "synthetic"
	}
	return opts, so, nil
}
