package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// WriteFileAtomic writes path through write so that path holds either its
// old content or the complete new one, never a partial file, even when
// the process is killed: write to a temporary file in the same directory,
// fsync it, rename it over path, fsync the directory. On any error the
// temporary file is removed and path is untouched.
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temp file for %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	// CreateTemp makes the file 0600; results are meant to be shared.
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename %s to %s: %w", tmp.Name(), path, err)
	}
	// Make the rename itself durable. Some systems cannot fsync a
	// directory; the file is complete either way, so that is not an error.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// CheckWritable fails early, before anything is measured, when path
// cannot be written: its directory is missing, is not a directory or
// does not accept new files, or path itself is a directory.
func CheckWritable(path string) error {
	if path == "" {
		return errors.New("empty output path")
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("output directory of %s: %w", path, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("output directory of %s: %s is not a directory", path, dir)
	}
	// Permission bits do not tell the whole story (read-only mounts,
	// ACLs, root): try what WriteFileAtomic will do.
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".check-*")
	if err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	return nil
}
