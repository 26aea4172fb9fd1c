package fileio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ErrOutput is wrapped by every error that refuses an output path before
// anything is written (a directory, a read-only file, a block device, a
// missing directory...): a usage error, which commands answer with exit 2.
var ErrOutput = errors.New("unusable output path")

// OutputError is a refused output path.
type OutputError struct {
	Path string
	Err  error
}

func (e *OutputError) Error() string        { return e.Path + ": " + e.Err.Error() }
func (e *OutputError) Unwrap() error        { return e.Err }
func (e *OutputError) Is(target error) bool { return target == ErrOutput }

// ErrReadOnly is wrapped when the output is a read-only regular file.
var ErrReadOnly = errors.New("read-only file: cachebench does not replace it (make it writable or remove it)")

// Target is an output path resolved by the output rule (see the package
// doc), once, before any work, so that a refused path costs nothing.
type Target struct {
	// Path is the path as given.
	Path string
	// File is the file written: Path with every symlink followed.
	File string
	// Direct is true for a character device or a FIFO: written in place.
	Direct bool
	// old is the replaced regular file's info (nil: a new file).
	old os.FileInfo
}

// Mode is the permission bits the written file gets: those of the file it
// replaces, else 0644.
func (t Target) Mode() os.FileMode {
	if t.old != nil {
		return t.old.Mode().Perm()
	}
	return 0o644
}

// Exists reports whether File exists (a regular file to replace, a device
// or a FIFO).
func (t Target) Exists() bool { return t.old != nil || t.Direct }

// ResolveOutput applies the output rule to path: it follows symlinks and
// refuses what cannot be written (an *OutputError wrapping ErrOutput). For
// a regular or new file it checks that the directory accepts a new file.
func ResolveOutput(path string) (Target, error) {
	t := Target{Path: path}
	if path == "" {
		return t, &OutputError{Path: path, Err: errors.New("empty output path")}
	}
	file, err := followLinks(path)
	if err != nil {
		return t, &OutputError{Path: path, Err: err}
	}
	t.File = file
	via := ""
	if file != path {
		via = " (the target of symlink " + path + ")"
	}
	refuse := func(format string, args ...any) (Target, error) {
		return t, &OutputError{Path: file, Err: fmt.Errorf(format+via, args...)}
	}
	fi, err := os.Lstat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(file)
		st, err := os.Stat(dir)
		if err != nil {
			return refuse("directory %s: %w", dir, err)
		}
		if !st.IsDir() {
			return refuse("%s is not a directory", dir)
		}
		if err := canCreateIn(dir, filepath.Base(file)); err != nil {
			return refuse("directory %s does not accept new files: %w", dir, err)
		}
		return t, nil
	case err != nil:
		// ENOTDIR: a path under a regular file; EACCES: a directory
		// that cannot be searched.
		return refuse("%w", err)
	case fi.IsDir():
		return refuse("is a directory")
	case fi.Mode().IsRegular():
		if fi.Mode().Perm()&0o222 == 0 || !writable(file) {
			return t, &OutputError{Path: file, Err: fmt.Errorf("%w%s", ErrReadOnly, via)}
		}
		dir := filepath.Dir(file)
		if err := canCreateIn(dir, filepath.Base(file)); err != nil {
			return refuse("cannot write a temp file beside it to rename over it: %w", err)
		}
		t.old = fi
		return t, nil
	case fi.Mode()&os.ModeCharDevice != 0, fi.Mode()&os.ModeNamedPipe != 0:
		if !writable(file) {
			return refuse("%w", fs.ErrPermission)
		}
		t.Direct = true
		return t, nil
	case fi.Mode()&os.ModeDevice != 0:
		return refuse("is a block device; cachebench writes only regular files, character devices and FIFOs")
	default:
		return refuse("is a %s; cachebench writes only regular files, character devices and FIFOs", typeName(fi.Mode()))
	}
}

// followLinks follows path while it is a symlink, dangling or not.
func followLinks(path string) (string, error) {
	p := path
	for range 40 {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return p, nil // the caller's Lstat reports err
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p = dest
	}
	return "", fmt.Errorf("too many levels of symbolic links")
}

// canCreateIn tries what a write will do: permission bits do not tell the
// whole story (read-only mounts, ACLs, root).
func canCreateIn(dir, base string) error {
	f, name, err := CreateTemp(dir, base)
	if err != nil {
		return err
	}
	f.Close()
	if name != "" {
		return os.Remove(name)
	}
	return nil
}

func typeName(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeNamedPipe != 0:
		return "FIFO"
	case m&os.ModeCharDevice != 0:
		return "character device"
	case m&os.ModeDevice != 0:
		return "block device"
	}
	return "file of unknown type"
}

// WriteFile writes path by the output rule through write, buffered. ctx
// bounds only the waits of a FIFO (for a reader, on a full pipe); a
// regular file is always written to the end, so that a result of an
// interrupted run can still be saved with an already cancelled ctx.
func WriteFile(ctx context.Context, path string, write func(io.Writer) error) error {
	t, err := ResolveOutput(path)
	if err != nil {
		return err
	}
	return t.WriteFile(ctx, write)
}

// WriteFile writes t through write (see the package function).
func (t Target) WriteFile(ctx context.Context, write func(io.Writer) error) error {
	if t.Direct {
		f, stop, err := openDirect(ctx, t.File)
		if err != nil {
			return err
		}
		defer stop()
		bw := bufio.NewWriter(f)
		// A failed write leaves bw's error sticky: Flush would only
		// report it a second time.
		err = write(bw)
		if err == nil {
			err = bw.Flush()
		}
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return WriteErr(t.File, err)
		}
		return nil
	}
	o, err := t.Create()
	if err != nil {
		return err
	}
	defer o.Abort()
	bw := bufio.NewWriter(o.File)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return WriteErr(t.File, err)
	}
	return o.Commit(ctx)
}

// Output is a file being written for a Target: a seekable temp file that
// Commit puts in place (renamed over a regular file, copied into a device
// or FIFO) and Abort discards.
type Output struct {
	*os.File
	t    Target
	name string // the temp file's name; "" while unnamed
	done bool
}

// Create resolves path by the output rule and opens its temp file.
func Create(path string) (*Output, error) {
	t, err := ResolveOutput(path)
	if err != nil {
		return nil, err
	}
	return t.Create()
}

// Create opens the temp file of t: beside the file for a regular target,
// in the system temp directory for a device or FIFO.
func (t Target) Create() (*Output, error) {
	dir := filepath.Dir(t.File)
	if t.Direct {
		dir = os.TempDir()
	}
	f, name, err := CreateTemp(dir, filepath.Base(t.File))
	if err != nil {
		return nil, fmt.Errorf("create temp file for %s: %w", t.File, err)
	}
	return &Output{File: f, t: t, name: name}, nil
}

// Target is the target o is written for.
func (o *Output) Target() Target { return o.t }

// Commit puts the temp file in place. A regular target gets the mode (and,
// as root, the owner) of the file it replaces, is fsynced, renamed over it
// and its directory fsynced. A device or FIFO gets the temp file's bytes
// copied into it, ctx bounding the copy. After Commit, Abort does nothing.
func (o *Output) Commit(ctx context.Context) error {
	if o.done {
		return errors.New("fileio: output already committed or aborted")
	}
	t := o.t
	if t.Direct {
		if _, err := o.File.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("rewind %s: %w", o.File.Name(), err)
		}
		f, stop, err := openDirect(ctx, t.File)
		if err != nil {
			return err
		}
		defer stop()
		_, err = io.Copy(f, &ctxReader{ctx: ctx, r: o.File})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return WriteErr(t.File, err)
		}
		o.Abort()
		return nil
	}
	if err := o.File.Chmod(t.Mode()); err != nil {
		return fmt.Errorf("chmod %s: %w", o.File.Name(), err)
	}
	if t.old != nil {
		chown(o.File, t.old)
	}
	if err := o.File.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", o.File.Name(), err)
	}
	dir := filepath.Dir(t.File)
	if o.name == "" {
		name, err := LinkTemp(o.File, dir, filepath.Base(t.File))
		if err != nil {
			return err
		}
		o.name = name
	}
	if err := o.File.Close(); err != nil {
		return fmt.Errorf("close %s: %w", o.name, err)
	}
	if err := os.Rename(o.name, t.File); err != nil {
		return fmt.Errorf("rename %s to %s: %w", o.name, t.File, err)
	}
	o.name, o.done = "", true
	if err := SyncDir(dir); err != nil {
		// The new file is in place; only its durability across a power
		// failure is in doubt, which the caller should hear about.
		return fmt.Errorf("fsync directory %s: %w", dir, err)
	}
	return nil
}

// Abort closes and removes the temp file; the target is untouched. It
// may be called after Commit (then it does nothing) and more than once.
func (o *Output) Abort() {
	if o.done {
		return
	}
	o.done = true
	o.File.Close()
	if o.name != "" {
		os.Remove(o.name)
	}
}

// ctxReader stops a copy when ctx is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// CancelWriter returns a writer that writes to w until ctx is cancelled
// and then fails every write with ctx's error: a command whose output
// must not be written after Ctrl-C (merge) writes through it, so that a
// long encoding stops at its next write and the temp file is discarded.
func CancelWriter(ctx context.Context, w io.Writer) io.Writer { return &ctxWriter{ctx: ctx, w: w} }

type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c *ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// fifoGrace is how long a FIFO write may wait for its reader once ctx is
// already cancelled (an interrupted run saving what it measured).
const fifoGrace = time.Second

// openDirect opens a character device or FIFO for writing, in place
// (O_WRONLY, no O_CREATE, no O_TRUNC). A FIFO's open waits for a reader
// until ctx is cancelled, and its writes give up once ctx is cancelled
// (or after fifoGrace if it already was); stop releases that watch.
func openDirect(ctx context.Context, path string) (*os.File, func(), error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if fi.Mode()&os.ModeNamedPipe == 0 {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		return f, func() {}, err
	}
	f, err := openFIFO(ctx, path, os.O_WRONLY)
	if err != nil {
		return nil, nil, err
	}
	if ctx.Err() != nil {
		f.SetWriteDeadline(time.Now().Add(fifoGrace))
		return f, func() {}, nil
	}
	stop := context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Now()) })
	return f, func() { stop() }, nil
}

// openFIFO opens a FIFO for reading or writing (flag) without blocking
// past ctx: the open waits for the other end in a goroutine, and a
// cancelled ctx unblocks it by briefly being that other end itself.
func openFIFO(ctx context.Context, path string, flag int) (*os.File, error) {
	if flag == os.O_WRONLY {
		// With a reader already there the open cannot block; without
		// one this fails (ENXIO) and the blocking open below waits.
		if f, err := os.OpenFile(path, os.O_WRONLY|nonblock, 0); err == nil {
			return f, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open %s: no %s on the FIFO: %w", path, otherEnd(flag), err)
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.OpenFile(path, flag, 0)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
	}
	other := os.O_RDONLY
	if flag != os.O_WRONLY {
		other = os.O_WRONLY
	}
	if p, err := os.OpenFile(path, other|nonblock, 0); err == nil {
		defer p.Close()
	}
	select {
	case o := <-ch:
		if o.f != nil {
			o.f.Close()
		}
	case <-time.After(time.Second):
		// The open is still blocked (the FIFO was replaced?); its
		// goroutine ends with the process.
	}
	return nil, fmt.Errorf("open %s: waiting for a %s on the FIFO: %w", path, otherEnd(flag), ctx.Err())
}

func otherEnd(flag int) string {
	if flag == os.O_WRONLY {
		return "reader"
	}
	return "writer"
}

// CheckDir refuses, with an *OutputError wrapping ErrOutput, a directory
// that a command is to write files into (--charts, --dir) when it is
// missing, not a directory, or does not accept a new file.
func CheckDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return &OutputError{Path: dir, Err: err}
	}
	if !st.IsDir() {
		return &OutputError{Path: dir, Err: errors.New("not a directory")}
	}
	if err := canCreateIn(dir, "check"); err != nil {
		return &OutputError{Path: dir, Err: fmt.Errorf("does not accept new files: %w", err)}
	}
	return nil
}

// TempDir is the directory of o's temp file: where other temp files of
// the same output belong (their space was checked there).
func (o *Output) TempDir() string {
	if o.t.Direct {
		return os.TempDir()
	}
	return filepath.Dir(o.t.File)
}
