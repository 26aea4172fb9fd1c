package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/report"
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
			"compressed when FILE ends in .zst or .gz), complete or not at all. Kinds:\n" + strings.Join(kinds, "\n"),
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
	fl.Float64Var(&f.alpha, "alpha", 1.0, "zipf exponent α, in (0, 10]; α ≤ 1 works here (a sampler over the finite key set), unlike run --zipf, which needs > 1")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the request sequence and object sizes")
	fl.StringVar(&f.size, "value-size", "64-4096", "object (value) size in bytes, N or MIN-MAX (log-uniform per object)")
	fl.StringVarP(&f.output, "output", "o", "", "trace file to write (required)")
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
	if err := report.CheckWritable(f.output); err != nil {
		return usageErrorf("-o: %w", err)
	}
	if err := trace.Generate(c, f.output); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %d requests, %s trace over %d keys\n", f.output, f.requests, f.kind, f.keys)
	return nil
}
