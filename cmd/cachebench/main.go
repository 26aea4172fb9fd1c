// Command cachebench benchmarks and inspects in-process caches and
// memory-mapped key/value stores. See README.md and METHODOLOGY.md.
//
// This package holds the command line only: root.go lists every command,
// and each command_<name>.go reads its flags into the options of one
// library call, makes it and writes the output. Measuring, parsing inputs
// and rendering live in internal/; nothing imports this package.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/cachebench/cachebench/internal/workloads/gcpause"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// A gc-pause child (this binary re-executed by gcpause.Measure) never
	// reaches the command line parser.
	code, isChild := gcpause.ServeChild(ctx, os.Stdout, os.Stderr)
	if !isChild {
		code = execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	}
	stop()
	os.Exit(code)
}
