// Command cachebench benchmarks and inspects in-process caches and
// memory-mapped key/value stores. See README.md.
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
