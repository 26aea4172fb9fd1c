// Package procgroup starts child processes in a process group of their
// own and signals the whole group: a Ctrl-C at the terminal then reaches
// only cachebench, which decides what its children get (an interrupt they
// clean up after, or a kill), and a child's own children (go build's
// compilers) get it too.
//
// Imports: nothing of cachebench; gate and gcpause use it.
package procgroup
