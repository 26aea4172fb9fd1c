package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/engine/mmapstore"
	"github.com/cachebench/cachebench/internal/fileio"
	"github.com/cachebench/cachebench/internal/fit"
	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/workloads/records"
)

type buildOpts struct {
	input, format, output, progress, dups string
	valueType                             string
	synthetic                             int64
	dedup, skipHeader, allowEmpty, force  bool
	syntheticSet                          bool // --synthetic was given, even as 0
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
--synthetic N builds the benchmark data set key_%d → val_%d for i in [0, N);
with --value-type its values are typed instead (float64s:32: 32 floats
i + j/4 per key; see records.Synthetic for each type).

--value-type TYPE: ` + records.ValueTypeHelp + `.

A repeated key is an error naming both lines unless --duplicates=last; an
input without pairs is refused unless --allow-empty. -o is checked before
anything is read; the file is written unnamed (Linux) or as a temp file
next to -o, fsynced and renamed over it: on a failure, Ctrl-C or kill -o
keeps its old contents. A replaced file keeps its mode; a read-only one is
refused; a symlink's target is written; a device or FIFO (/dev/null) gets
the finished store copied into it, never replaced (built in the temp dir
first). --synthetic N first builds a small sample to measure the bytes per
entry, and refuses (exit 2) a build whose file would not fit the free disk
of -o's file system or whose builder would not fit the available memory,
unless --force. Exit 2: bad input or -o; 1: other failures; 130: interrupted.`,
		Example: `  cachebench build --input data.tsv -o data.cache
  cachebench build --input export.csv --skip-header --dedup -o data.cache
  cachebench build --input events.json --input-format jsonl -o events.cache
  cachebench build --input features.jsonl -o features.cache
  cachebench build --input prices.csv --value-type float64 -o prices.cache
  cachebench build --synthetic 1000000 --value-type float64s:32 -o vectors.cache
  cachebench build --synthetic 1000000 -o bench.cache`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.syntheticSet = cmd.Flags().Changed("synthetic")
			return runBuild(cmd, &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.input, "input", "", "input file (TSV, CSV or JSON lines)")
	f.StringVar(&o.format, "input-format", "", "input format: tsv, csv or jsonl (default: from the extension)")
	f.StringVarP(&o.output, "output", "o", "", "store file to write (replaced atomically)")
	f.Var(parse.NewCountValue(&o.synthetic, 0), "synthetic", "build N synthetic pairs key_%d → val_%d instead of reading --input")
	f.StringVar(&o.valueType, "value-type", "", "type of the values: TSV/CSV value column, every JSON value, or the synthetic values (default: bytes; JSON: each value's JSON type)")
	f.BoolVar(&o.dedup, "dedup", false, "store each distinct value once")
	f.BoolVar(&o.skipHeader, "skip-header", false, "skip the first line (TSV) or record (CSV)")
	f.BoolVar(&o.allowEmpty, "allow-empty", false, "write an empty store when the input has no pairs")
	f.StringVar(&o.dups, "duplicates", "error", "repeated keys: error or last (keep the last value)")
	f.Uint64Var(&o.seed, "seed", 0, "hash seed (0: random)")
	f.Float64Var(&o.maxLoad, "max-load", mmapstore.DefaultBucketFill, "share of the index buckets' entry bytes in use, in (0.05, 0.9]")
	f.StringVar(&o.progress, "progress", "auto", progressHelp)
	f.BoolVar(&o.force, "force", false, "build --synthetic even when the estimated disk or memory exceeds what is free")
	return cmd
}

func runBuild(cmd *cobra.Command, o *buildOpts) error {
	opts, so, vt, err := o.options()
	if err != nil {
		return err
	}
	t, err := checkOutput("build: -o", o.output)
	if err != nil {
		return err
	}
	if o.synthetic > 0 {
		need, err := syntheticNeed(cmd.Context(), o.synthetic, vt, opts, outputDir(t))
		if err != nil {
			return err
		}
		if err := checkFit(need, o.force); err != nil {
			return err
		}
	}
	in, err := records.OpenInput(cmd.Context(), o.input, o.format, o.skipHeader, o.synthetic, vt)
	if err != nil {
		if cmd.Context().Err() != nil {
			return err
		}
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
	// The builder renames its file over the path it is given: the file a
	// symlink points to, or, for a device or FIFO, a file in the temp
	// directory that is then copied into it.
	dest := t.File
	if t.Direct {
		dest = filepath.Join(os.TempDir(), fmt.Sprintf(".cachebench-build-%d-%x.cache", os.Getpid(), rand.Uint64()))
		defer os.Remove(dest)
	}
	res, err := mmapstore.BuildFrom(cmd.Context(), dest, in, opts, so)
	if err == nil && t.Direct {
		err = copyInto(cmd.Context(), t, dest)
	}
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
	fmt.Fprintf(w, "index: %d buckets of 128 bytes, max probe %d buckets\n", h.Buckets, h.MaxProbe)
	if o.dedup {
		fmt.Fprintf(w, "dedup: %d references, %d bytes saved\n", res.DedupRefs, res.DedupSavedBytes)
	}
	fmt.Fprintf(w, "build: %s (%.0f ns/entry, fsync and rename included)\n", el.Round(time.Millisecond), float64(el.Nanoseconds())/float64(max(h.Entries, 1)))
	return nil
}

// options checks the flags and turns them into the library's options
// and the input's value type.
func (o *buildOpts) options() (mmapstore.BuildOptions, mmapstore.SourceOptions, records.ValueType, error) {
	opts := mmapstore.BuildOptions{Dedup: o.dedup, Seed: o.seed, MaxLoad: o.maxLoad, SizeHint: int(min(o.synthetic, 1<<30))}
	so := mmapstore.SourceOptions{Name: o.input, AllowEmpty: o.allowEmpty}
	var vt records.ValueType
	switch {
	case o.output == "":
		return opts, so, vt, usageErrorf("build: -o/--output is required")
	case o.synthetic < 0 || (o.syntheticSet && o.synthetic == 0 && o.input == ""):
		return opts, so, vt, usageErrorf("build: --synthetic must be at least 1, got %d", o.synthetic)
	case (o.input == "") == (o.synthetic == 0):
		return opts, so, vt, usageErrorf("build: give exactly one of --input FILE and --synthetic N")
	case !(o.maxLoad > 0.05 && o.maxLoad <= 0.9):
		return opts, so, vt, usageErrorf("build: --max-load %v outside (0.05, 0.9]", o.maxLoad)
	}
	switch o.dups {
	case "error":
		opts.Duplicates = mmapstore.DupError
	case "last":
		opts.Duplicates = mmapstore.DupLastWins
	default:
		return opts, so, vt, usageErrorf("build: unknown --duplicates %q (valid: error, last)", o.dups)
	}
	if o.valueType != "" {
		var err error
		if vt, err = records.ParseValueType(o.valueType); err != nil {
			return opts, so, vt, usageErrorf("build: --value-type: %w", err)
		}
	}
	if o.input == "" {
		so.Name = "synthetic"
	}
	return opts, so, vt, nil
}

// copyInto copies the built store at src into the device or FIFO t.
func copyInto(ctx context.Context, t fileio.Target, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	return t.WriteFile(ctx, func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
}

// calibrationEntries is the size of the sample build that measures the
// bytes per entry of a synthetic store: a few milliseconds.
const calibrationEntries = 1 << 14

// syntheticNeed estimates a --synthetic n build from a sample build of
// min(n, calibrationEntries) entries in the temp directory: the file is
// n × the sample's bytes per entry, plus two bytes per entry for each
// digit its keys and values have beyond the sample's; the builder holds
// its 16-byte entry table, the inline records and the index in memory at
// once, about twice the file besides the table (2M entries: 208 MB peak
// RSS for an 82 MB file).
func syntheticNeed(ctx context.Context, n int64, vt records.ValueType, opts mmapstore.BuildOptions, dir string) (fit.Need, error) {
	sample := min(n, calibrationEntries)
	path := filepath.Join(os.TempDir(), fmt.Sprintf(".cachebench-calibrate-%d-%x.cache", os.Getpid(), rand.Uint64()))
	defer os.Remove(path)
	opts.SizeHint = int(sample)
	src, err := records.NewSynthetic(sample, vt)
	if err != nil { // a value type the synthetic set cannot make: usage
		return fit.Need{}, usageErrorf("build: %w", err)
	}
	res, err := mmapstore.BuildFrom(ctx, path, src, opts, mmapstore.SourceOptions{Name: "calibration"})
	if err != nil {
		return fit.Need{}, fmt.Errorf("build: measuring the bytes per entry: %w", err)
	}
	digits := func(v int64) int64 { return int64(len(strconv.FormatInt(max(v-1, 0), 10))) }
	per := int64(math.Ceil(res.BytesPerEntry())) + 2*max(digits(n)-digits(sample), 0)
	disk := fit.Mul(n, per)
	return fit.Need{
		What: fmt.Sprintf("build --synthetic %d", n), Dir: dir,
		Disk: disk, DiskDetail: fmt.Sprintf("%d B per entry, measured on %d entries", per, sample),
		Memory:       fit.Add(fit.Mul(n, 16), fit.Mul(disk, 2)),
		MemoryDetail: "16 B per entry and twice the file, held by the builder",
	}, nil
}
