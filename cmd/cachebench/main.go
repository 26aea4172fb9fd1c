// Command cachebench benchmarks and inspects in-process caches and
// memory-mapped key/value stores. See README.md and docs/method.md.
//
// The command line lives in internal/cli (root.go lists every command);
// this file only starts it.
package main

import "github.com/cachebench/cachebench/internal/cli"

func main() { cli.Main() }
