package report

import (
	"context"
	"io"

	"github.com/cachebench/cachebench/internal/fileio"
)

// InputError marks a failure caused by a bad input file (missing,
// unreadable, corrupt, of another format) rather than by the tool, so a
// command can answer it with the usage exit code.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// WriteFileAtomic writes path through write by the output rule of
// package fileio (the one rule of every file cachebench writes): a regular
// or new file is written to an unnamed temp file beside it, fsynced and
// renamed over it, keeping its mode, so that path holds either its old
// content or the complete new one, even when the process is killed; a
// device or FIFO is written in place; a symlink's target is written. On
// any error path is untouched and no temp file is left.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	return fileio.WriteFile(context.Background(), path, write)
}

// CheckWritable fails early, before anything is measured, when path
// cannot be written by that rule (fileio.ResolveOutput): its directory is
// missing or does not accept new files, path is a directory, a read-only
// file, a block device or a socket.
func CheckWritable(path string) error {
	_, err := fileio.ResolveOutput(path)
	return err
}
