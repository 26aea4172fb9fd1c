package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	// Register every adapter.
	_ "github.com/cachebench/cachebench/internal/engine/adapters"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks an error caused by bad usage or bad input (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usageErrorf returns an error that makes the process exit with code 2.
func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// exitCoder lets a command choose its exit code (compare uses 1 for a
// regression that is not a failure of the tool itself).
type exitCoder interface{ ExitCode() int }

// subcommands lists the constructors of the root's subcommands. Each
// command file appends its constructor in an init function, so adding a
// command never touches this file.
var subcommands []func() *cobra.Command

// newRootCmd builds the command tree; tests call it with SetArgs.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "cachebench",
		Short: "Benchmark and inspect in-process caches and mmap key/value stores",
		Long: `cachebench drives in-process caches and memory-mapped key/value stores through
one adapter interface with pre-generated, seeded workloads, verifies every value
it reads back, and reports latency, throughput, allocations and hit ratios per
CPU model.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{err}
	})
	for _, newCmd := range subcommands {
		root.AddCommand(newCmd())
	}
	return root
}

// execute runs the CLI and maps errors to exit codes.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "cachebench:", err)
	var ec exitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	var ue usageError
	if errors.As(err, &ue) || isCobraUsageError(err) {
		return exitUsage
	}
	return exitFailure
}

// isCobraUsageError recognises cobra's own argument errors (unknown command,
// wrong number of args), which it returns as plain errors.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "unknown flag", "unknown shorthand flag", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
