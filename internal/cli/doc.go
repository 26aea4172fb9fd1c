// Package cli is cachebench's command line: root.go lists every command,
// and each command_<name>.go reads its flags into the options of one
// library call, makes it and writes the output. Measuring, parsing inputs
// and rendering live in the engine, workloads and report packages.
package cli
