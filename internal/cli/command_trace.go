package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/fit"
	"github.com/cachebench/cachebench/internal/workloads"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Make request traces for hitratio",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageErrorf("trace needs a subcommand (gen)")
		},
	}
	cmd.AddCommand(newTraceGenCmd())
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
		Long: "gen writes a seeded synthetic trace as oracleGeneral binary records (zstd or gzip\n" +
			"compressed when FILE ends in .zst or .gz), complete or not at all: Ctrl-C or a kill\n" +
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
	fl.StringVar(&f.kind, "kind", "zipf", "trace kind: "+strings.Join(trace.KindNames(), ", "))
	fl.Int64Var(&f.requests, "requests", 1_000_000, "number of requests")
	fl.IntVar(&f.keys, "keys", 100_000, "number of keys (web adds one-hit wonders beyond them)")
	fl.Float64Var(&f.alpha, "alpha", 1.0, "zipf exponent (> 0)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the request sequence and object sizes")
	fl.StringVar(&f.size, "value-size", "64-4096", "object (value) size in bytes, N or MIN-MAX (log-uniform per object)")
	fl.StringVarP(&f.output, "output", "o", "", "trace file to write (required)")
	fl.BoolVar(&f.force, "force", false, "run even when the estimated disk or memory exceeds what is free")
	return cmd
}

func runTraceGen(cmd *cobra.Command, f *traceGenFlags) error {
	if f.output == "" {
		return usageErrorf("-o is required")
	}
	lo, hi, err := workloads.ParseValueSize(f.size)
	if err != nil {
		return usageError{err}
	}
	if lo < 1 || hi > 1<<30 {
		return usageErrorf("--value-size %q: sizes must be in 1..%d bytes", f.size, 1<<30)
	}
	c := trace.GenConfig{Kind: f.kind, Requests: f.requests, Keys: f.keys, Alpha: f.alpha, Seed: f.seed,
		SizeMin: uint32(lo), SizeMax: uint32(hi)}
	if err := c.Validate(); err != nil {
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
