package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads/trace"
	"github.com/cachebench/cachebench/internal/workloads/trace/published"
)

type traceConvertFlags struct {
	format, traceFormat string
}

func newTraceConvertCmd() *cobra.Command {
	var f traceConvertFlags
	cmd := &cobra.Command{
		Use:   "convert [FORMAT:]IN OUT",
		Short: "Rewrite a trace of any readable format as oracleGeneral, text or CSV",
		Long: `convert reads IN (named as for hitratio: [FORMAT:]FILE, a vendored trace, or
chain:A+B) and writes every request to OUT: oracleGeneral records with the
next-request times filled in (what libCacheSim's cachesim and the hit-ratio lab
replay, Belady's OPT included), "time id size" text lines, or "time,id,size" CSV
under a header. The format is told by OUT's name (.oracleGeneral, .oracle or .bin;
.txt; .csv), or given by --format; a .zst, .gz or .xz suffix compresses. OUT
appears complete or not at all. Each output reads back with the same ids, sizes
and times; convert prints how to name it (text is adaptsize:OUT, CSV is
csv[time=1,id=2,size=3,header]:OUT). A malformed record of IN stops it with the
record number (exit 2). Memory: oracleGeneral output keeps a map entry per
distinct object.`,
		Example: `  cachebench trace gen --kind zipf --requests 100000 --keys 10000 -o z.oracleGeneral.zst
  cachebench trace convert z.oracleGeneral.zst z.txt
  cachebench trace convert adaptsize:z.txt z2.oracleGeneral.zst
  cachebench trace convert 'csv[key=2,size=4,time=1]:w.csv.zst' w.oracleGeneral.zst`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTraceConvert(cmd, &f, args[0], args[1])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "auto", "output format: auto (from OUT's name), "+strings.Join(trace.OutFormats, ", "))
	fl.StringVar(&f.traceFormat, "trace-format", "auto", "format of IN when it has no FORMAT:")
	return cmd
}

func runTraceConvert(cmd *cobra.Command, f *traceConvertFlags, in, out string) error {
	of, err := trace.ParseOutFormat(f.format)
	if err != nil {
		return usageErrorf("--format: %w", err)
	}
	if of == "" {
		if of, err = trace.OutFormatOf(out); err != nil {
			return usageError{err}
		}
	}
	if _, err := checkOutput("OUT", out); err != nil {
		return err
	}
	tf, err := openTraceArg(cmd.Context(), in, f.traceFormat)
	if err != nil {
		return err
	}
	defer tf.Close()
	n, err := trace.Convert(cmd.Context(), tf, out, of)
	if err != nil {
		return traceInputError(err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %d requests as %s (read it as %s)\n", out, n, of, trace.ReadBack(of, out))
	return nil
}

type traceHeadFlags struct {
	traceFormat string
	n           int
}

func newTraceHeadCmd() *cobra.Command {
	var f traceHeadFlags
	cmd := &cobra.Command{
		Use:   "head [-n N] [FORMAT:]TRACE",
		Short: "Print the first requests of a trace",
		Long: `head prints the first N requests of a trace (named as for hitratio) as the
lab reads them: record number, time, object id, size and, where the format
carries it (oracleGeneral), the record number of the next request to the
object ("-" for none).`,
		Example: `  cachebench trace head -n 5 lirs/sprite`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTraceHead(cmd, &f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.IntVarP(&f.n, "lines", "n", 10, "number of requests to print")
	fl.StringVar(&f.traceFormat, "trace-format", "auto", "format of TRACE when it has no FORMAT:")
	return cmd
}

func runTraceHead(cmd *cobra.Command, f *traceHeadFlags, arg string) error {
	if f.n < 1 {
		return usageErrorf("-n must be at least 1, got %d", f.n)
	}
	tf, err := openTraceArg(cmd.Context(), arg, f.traceFormat)
	if err != nil {
		return err
	}
	defer tf.Close()
	t := report.NewFigureTable("record", "time", "id", "size", "next")
	var q trace.Request
	for i := 1; i <= f.n; i++ {
		err := tf.Next(&q)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return traceInputError(err)
		}
		next := "-"
		if q.Next != trace.NoNext {
			next = strconv.FormatInt(q.Next+1, 10)
		}
		t.Add(strconv.Itoa(i), strconv.FormatUint(uint64(q.Time), 10), strconv.FormatUint(q.ID, 10),
			strconv.FormatUint(uint64(q.Size), 10), next)
	}
	if len(t.Rows) == 0 {
		return usageErrorf("%s: %w", arg, trace.ErrEmpty)
	}
	return t.WriteText(cmd.OutOrStdout())
}

// openTraceArg resolves a trace argument as hitratio does and opens it;
// what is wrong with it is the input's fault (exit 2).
func openTraceArg(ctx context.Context, arg, traceFormat string) (*trace.File, error) {
	def, err := trace.ParseFormat(traceFormat)
	if err != nil {
		return nil, usageErrorf("--trace-format: %w", err)
	}
	src := published.Resolve(arg, def)
	return openTraceSource(ctx, &src)
}

// openTraceSource opens src, setting its format from its name when it
// has none; every failure is a usage error.
func openTraceSource(ctx context.Context, src *trace.Source) (*trace.File, error) {
	if src.Format == "" {
		f, err := trace.FormatOf(src.Path)
		if err != nil {
			return nil, usageError{err}
		}
		src.Format = f
	}
	tf, err := src.Open(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, usageError{err}
	}
	return tf, nil
}

// traceInputError makes a malformed record or an empty trace a usage
// error (exit 2); other errors (a write, Ctrl-C) are left as they are.
func traceInputError(err error) error {
	var re *trace.RecordError
	if errors.As(err, &re) || errors.Is(err, trace.ErrEmpty) {
		return usageError{err}
	}
	return err
}
