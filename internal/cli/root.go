package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	// Register every adapter.
	_ "github.com/cachebench/cachebench/internal/engine/adapters"
	"github.com/cachebench/cachebench/internal/workloads/gcpause"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	// exitInterrupted: SIGINT or SIGTERM stopped the command (128 + SIGINT,
	// as a shell reports it). What was measured is kept: a partial result
	// goes beside -o (NAME.interrupted.json), never over it.
	exitInterrupted = 130
)

// usageError marks an error caused by bad usage or bad input (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usageErrorf returns an error that makes the process exit with code 2.
func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// usageArgs wraps a cobra argument validator so that what it refuses is a
// usageError (exit 2). newRootCmd applies it to every command's Args, so a
// command declares plain cobra validators (cobra.ExactArgs(1), ...).
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// exitCoder lets a command choose its exit code (compare uses 1 for a
// regression that is not a failure of the tool itself).
type exitCoder interface{ ExitCode() int }

// newRootCmd builds the command tree; tests call it with SetArgs. Every
// command is listed here, in the order `cachebench --help` shows them.
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
		// With Args set, cobra hands an unknown subcommand to the root
		// instead of failing inside its lookup with a plain error.
		Args: unknownCommand,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	// Flag parse errors of every command (unknown flag, bad value) come
	// through the root's hook.
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageError{err}
	})
	root.AddCommand(
		newRunCmd(),
		newListCmd(),
		newReportCmd(),
		newCompareCmd(),
		newMergeCmd(),
		newVersionCmd(),
		newBuildCmd(),
		newInspectCmd(),
		newGCPauseCmd(),
		newHitRatioCmd(),
		newTraceCmd(),
		newGateCmd(),
		newAdviseCmd(),
	)
	wrapArgs(root)
	return root
}

// unknownCommand refuses any argument of the root: it can only be a
// subcommand that does not exist.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
	}
	return usageError{errors.New(msg)}
}

// wrapArgs makes the argument validators of cmd's subtree return usageError.
func wrapArgs(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		if c.Args != nil {
			c.Args = usageArgs(c.Args)
		}
		wrapArgs(c)
	}
}

// Main runs the command line with the process's arguments and exits with
// its code: 0 ok, 1 a failure (or, for compare and gate, a regression),
// 2 bad usage or input, 130 interrupted. Ctrl-C and SIGTERM cancel the
// command's context.
// A gc-pause child (the binary re-executed by gcpause.Measure) is served
// before the command line is parsed, so any binary whose main calls Main
// can run gc-pause.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code, isChild := gcpause.ServeChild(ctx, os.Stdout, os.Stderr)
	if !isChild {
		code = Execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	}
	stop()
	os.Exit(code)
}

// errorText is the one line printed for a command's error. An error that
// an interrupt caused says "interrupted" (and which signal, when the
// context knows it) instead of the context package's "context canceled",
// which tells a user at the terminal nothing about the Ctrl-C they typed.
func errorText(ctx context.Context, err error) string {
	msg := err.Error()
	if !errors.Is(err, context.Canceled) {
		return msg
	}
	for _, s := range []string{": " + context.Canceled.Error(), context.Canceled.Error()} {
		msg = strings.ReplaceAll(msg, s, "")
	}
	msg = strings.TrimPrefix(strings.TrimPrefix(msg, "interrupted"), ": ")
	head := "interrupted"
	if cause := context.Cause(ctx); cause != nil && cause.Error() != context.Canceled.Error() {
		head += " (" + cause.Error() + ")"
	}
	if msg == "" {
		return head
	}
	return head + ": " + msg
}

// Execute runs the command line args with the given output streams and
// returns the exit code; tests call it without a process.
func Execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "cachebench:", errorText(ctx, err))
	if ctx.Err() != nil {
		return exitInterrupted
	}
	var ec exitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailure
}
