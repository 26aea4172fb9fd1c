package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/fileio"
	"github.com/cachebench/cachebench/internal/fit"
	"github.com/cachebench/cachebench/internal/parse"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/trace"
	"github.com/cachebench/cachebench/internal/workloads/trace/published"
)

func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Make request traces for hitratio, and describe traces",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageErrorf("trace needs a subcommand (gen, stats, convert, head)")
		},
	}
	cmd.AddCommand(newTraceGenCmd(), newTraceStatsCmd(), newTraceConvertCmd(), newTraceHeadCmd())
	return cmd
}

type traceGenFlags struct {
	kind, size, output string
	requests           int64
	keys               int
	alpha              float64
	seed               uint64
	force              bool
}

func newTraceGenCmd() *cobra.Command {
	var f traceGenFlags
	var kinds []string
	for _, k := range trace.KindNames() {
		kinds = append(kinds, fmt.Sprintf("  %-6s %s", k, trace.Kinds[k]))
	}
	cmd := &cobra.Command{
		Use:   "gen --kind KIND --requests N --keys K -o FILE",
		Short: "Generate a synthetic trace as libCacheSim oracleGeneral (next-access times filled in)",
		Long: "gen writes a seeded synthetic trace as oracleGeneral binary records (zstd, gzip or\n" +
			"xz compressed when FILE ends in .zst, .gz or .xz), complete or not at all: Ctrl-C or a kill\n" +
			"leaves no file and no temp file. Its disk (24 B per request, twice that compressed)\n" +
			"and memory (about 40 B per distinct object) are estimated first; a trace that does\n" +
			"not fit the free disk of -o's file system or the available memory is refused\n" +
			"(exit 2) unless --force. Kinds:\n" + strings.Join(kinds, "\n"),
		Example: `  cachebench trace gen --kind zipf --alpha 0.9 --requests 2000000 --keys 100000 -o zipf.oracleGeneral
  cachebench trace gen --kind mix --requests 1000000 --keys 100000 -o mix.oracleGeneral.zst`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTraceGen(cmd, &f)
		},
	}
	fl := cmd.Flags()
	d := defaultGen
	fl.StringVar(&f.kind, "kind", d.kind, "trace kind: "+strings.Join(trace.KindNames(), ", "))
	fl.Var(parse.NewCountValue(&f.requests, d.requests), "requests", "number of requests")
	fl.Var(parse.NewCountValue(&f.keys, d.keys), "keys", "number of keys (web adds one-hit wonders beyond them)")
	fl.Float64Var(&f.alpha, "alpha", d.alpha, "zipf exponent α, in (0, 10]; α ≤ 1 works here (a sampler over the finite key set), unlike run --zipf, which needs > 1")
	fl.Uint64Var(&f.seed, "seed", d.seed, "seed of the request sequence and object sizes")
	fl.StringVar(&f.size, "value-size", d.size, "object (value) size in bytes, N or MIN-MAX (log-uniform per object)")
	fl.StringVarP(&f.output, "output", "o", "", "trace file to write (required)")
	fl.BoolVar(&f.force, "force", false, "run even when the estimated disk or memory exceeds what is free")
	return cmd
}

func runTraceGen(cmd *cobra.Command, f *traceGenFlags) error {
	if f.output == "" {
		return usageErrorf("-o is required")
	}
	c, err := f.config()
	if err != nil {
		return usageError{err}
	}
	t, err := checkOutput("-o", f.output)
	if err != nil {
		return err
	}
	disk, mem := c.Estimate(trace.Compressed(f.output))
	detail := fmt.Sprintf("%d-byte records × %d requests", trace.OracleRecordSize, f.requests)
	if trace.Compressed(f.output) {
		detail += ", raw and compressed copies at once"
	}
	need := fit.Need{What: "trace gen", Dir: outputDir(t), Disk: disk, DiskDetail: detail,
		Memory: mem, MemoryDetail: "the next-request table: about 40 B per distinct object"}
	if err := checkFit(need, f.force); err != nil {
		return err
	}
	if err := trace.Generate(cmd.Context(), c, f.output); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %d requests, %s trace over %d keys\n", f.output, f.requests, f.kind, f.keys)
	return nil
}

// defaultGen holds the defaults of trace gen's flags, which a gen: trace
// spec (parseGenSpec) shares.
var defaultGen = traceGenFlags{kind: "zipf", requests: 1_000_000, keys: 100_000, alpha: 1, seed: 1, size: "64-4096"}

// config checks f and makes the generator's configuration.
func (f *traceGenFlags) config() (trace.GenConfig, error) {
	lo, hi, err := workloads.ParseValueSize(f.size)
	if err != nil {
		return trace.GenConfig{}, err
	}
	if lo < 1 || hi > 1<<30 {
		return trace.GenConfig{}, fmt.Errorf("--value-size %q: sizes must be in 1..%d bytes", f.size, 1<<30)
	}
	c := trace.GenConfig{Kind: f.kind, Requests: f.requests, Keys: f.keys, Alpha: f.alpha, Seed: f.seed,
		SizeMin: uint32(lo), SizeMax: uint32(hi)}
	return c, c.Validate()
}

// genPrefix starts a trace argument that names a synthetic trace streamed
// as it is drawn: gen:KIND[,requests=N][,keys=K][,alpha=A][,seed=S][,size=MIN-MAX].
const genPrefix = "gen:"

// genSpecHelp says what a gen: trace argument is; hitratio's help repeats it.
const genSpecHelp = `gen:KIND[,requests=N][,keys=K][,alpha=A][,seed=S][,size=N|MIN-MAX] streams
the synthetic trace 'cachebench trace gen' would write with those flags (same
defaults), drawn as it is replayed, so that no file of its length is written`

// parseGenSpec reads the part of a gen: argument after the prefix.
func parseGenSpec(spec string) (trace.GenConfig, error) {
	items, err := parse.List(spec)
	if err != nil {
		return trace.GenConfig{}, err
	}
	f := defaultGen
	f.kind = items[0]
	for _, it := range items[1:] {
		k, v, ok := strings.Cut(it, "=")
		if !ok {
			return trace.GenConfig{}, fmt.Errorf("%q: want key=value (requests, keys, alpha, seed, size)", it)
		}
		var err error
		switch k {
		case "requests":
			f.requests, err = strconv.ParseInt(v, 10, 64)
		case "keys":
			f.keys, err = strconv.Atoi(v)
		case "alpha":
			f.alpha, err = strconv.ParseFloat(v, 64)
		case "seed":
			f.seed, err = strconv.ParseUint(v, 10, 64)
		case "size":
			f.size = v
		default:
			return trace.GenConfig{}, fmt.Errorf("unknown key %q (valid: requests, keys, alpha, seed, size)", k)
		}
		if err != nil {
			return trace.GenConfig{}, fmt.Errorf("%s=%q: not a number", k, v)
		}
	}
	return f.config()
}

type traceStatsFlags struct {
	format, traceFormat, output string
	vendored                    bool
}

func newTraceStatsCmd() *cobra.Command {
	var f traceStatsFlags
	cmd := &cobra.Command{
		Use:   "stats [FORMAT:]FILE... | --vendored",
		Short: "Describe traces: requests, objects, one-hit wonders, reuse distances, LRU hit ratios",
		Long: `stats reads each trace once and reports its requests, distinct objects, one-hit
wonders (objects requested once), reuses (requests an unbounded cache hits), mean
object size, quantiles of the reuse distance (the distinct other objects requested
between two requests to an object: its LRU stack distance), and the hit ratio of an
exact LRU cache at 1, 2, 5, 10 and 20% of the objects, derived from those distances.
Traces are named as for hitratio ([FORMAT:]FILE, or a vendored trace's name);
--vendored describes every trace embedded in the binary. Ctrl-C or SIGTERM stops it
within a second (exit 130), writing nothing.
` + trace.StatsHelp,
		Example: `  cachebench trace stats cache2k/web07 lirs/sprite
  cachebench trace stats --vendored --format markdown`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTraceStats(cmd, &f, args)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.vendored, "vendored", false, "describe every vendored (embedded) trace")
	fl.StringVar(&f.traceFormat, "trace-format", "auto", "format of the traces given without FORMAT:")
	fl.StringVar(&f.format, "format", "text", "output format: text, markdown or json")
	fl.StringVarP(&f.output, "output", "o", "", "write to this file (atomically) instead of stdout")
	return cmd
}

func runTraceStats(cmd *cobra.Command, f *traceStatsFlags, args []string) error {
	tf, err := trace.ParseFormat(f.traceFormat)
	if err != nil {
		return usageErrorf("--trace-format: %w", err)
	}
	var srcs []trace.Source
	for _, a := range args {
		srcs = append(srcs, published.Resolve(a, tf))
	}
	if f.vendored {
		for _, t := range published.List() {
			srcs = append(srcs, t.Source())
		}
	}
	if len(srcs) == 0 {
		return usageErrorf("name at least one trace, or give --vendored")
	}
	if err := checkFormat(f.format, []string{"text", "markdown", "json"}); err != nil {
		return usageError{err}
	}
	if f.output != "" {
		if _, err := checkOutput("-o", f.output); err != nil {
			return err
		}
	}
	var out []trace.NamedStats
	for _, src := range srcs {
		s, err := statsOf(cmd.Context(), src)
		if err != nil {
			return err
		}
		out = append(out, s)
	}
	write := func(w io.Writer) error { return writeTraceStats(w, out, f.format) }
	if f.output == "" {
		return write(cmd.OutOrStdout())
	}
	return fileio.WriteFile(cmd.Context(), f.output, write)
}

// statsOf reads one trace; what is wrong with it is the input's fault
// (exit 2), with its record number.
func statsOf(ctx context.Context, src trace.Source) (trace.NamedStats, error) {
	tf, err := openTraceSource(ctx, &src)
	if err != nil {
		return trace.NamedStats{}, err
	}
	defer tf.Close()
	s, err := trace.ComputeStatsContext(ctx, tf, fit.Current(""))
	var tooBig *fit.TooBigError
	if errors.As(err, &tooBig) {
		return trace.NamedStats{}, usageError{err}
	}
	if err != nil {
		return trace.NamedStats{}, traceInputError(err)
	}
	if s.Requests == 0 {
		return trace.NamedStats{}, usageErrorf("%s: %w", src.Path, trace.ErrEmpty)
	}
	return trace.NamedStats{Name: src.DisplayName(), Format: src.Format, Stats: s}, nil
}

// writeTraceStats renders stats as a text or markdown table, or as JSON.
func writeTraceStats(w io.Writer, stats []trace.NamedStats, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(stats)
	case "text", "markdown":
	default:
		return usageErrorf("unknown output format %q (valid: text, markdown, json)", format)
	}
	head := []string{"trace", "format", "requests", "objects", "one-hit wonders", "reuses", "mean object"}
	for _, q := range trace.StatsQuantiles {
		head = append(head, fmt.Sprintf("reuse dist p%g", 100*q))
	}
	for _, f := range trace.StatsFractions {
		head = append(head, fmt.Sprintf("LRU %g%%", 100*f))
	}
	t := report.NewFigureTable(head...)
	t.Align[1] = report.AlignLeft
	share := func(n, of int64) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(max(of, 1))) }
	for _, s := range stats {
		cells := []string{s.Name, string(s.Format), report.FormatInt(s.Requests), report.FormatInt(int64(s.Distinct)),
			report.FormatInt(int64(s.OneHitWonders)) + " (" + share(int64(s.OneHitWonders), int64(s.Distinct)) + ")",
			share(s.Reuses, s.Requests), fmt.Sprintf("%.0f B", s.MeanObjectSize())}
		for _, q := range s.ReuseDistance {
			cells = append(cells, report.FormatInt(q.Value))
		}
		for _, h := range s.LRUHits {
			cells = append(cells, share(h, s.Requests))
		}
		t.Add(cells...)
	}
	if format == "markdown" {
		return t.WriteMarkdown(w)
	}
	return t.WriteText(w)
}
