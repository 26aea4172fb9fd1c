package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// ErrInput is wrapped by the errors of OpenInput and CheckRegular that
// refuse a path for its type (a directory, a socket, a device).
var ErrInput = errors.New("not a readable input file")

// InputError is an input path refused for its type.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string        { return e.Path + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error        { return e.Err }
func (e *InputError) Is(target error) bool { return target == ErrInput }

// OpenInput opens path for reading: a regular file as os.Open does; a
// FIFO (a named pipe, /dev/stdin fed by a pipe, bash's <(...)) with an
// open that waits for a writer only until ctx is cancelled, and reads
// that return an error once ctx is cancelled. A directory, socket or
// device is refused with an *InputError: none of them is a file of
// records, and a device such as /dev/zero would be read forever.
func OpenInput(ctx context.Context, path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := inputType(path, fi.Mode()); err != nil {
		return nil, err
	}
	if fi.Mode().IsRegular() {
		return os.Open(path)
	}
	f, err := openFIFO(ctx, path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	// The FIFO's reads go through the runtime's poller, so a deadline
	// ends a read that waits; nothing to stop once the file is closed.
	context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
	return f, nil
}

// ErrTooLarge is wrapped by ReadInput's error for a file above its limit.
var ErrTooLarge = errors.New("larger than the limit")

// ReadInput reads all of path, at most limit bytes, through OpenInput: a
// FIFO without a writer gives up when ctx is cancelled, a device such as
// /dev/zero is refused instead of read until memory runs out, and a file
// above limit is refused (ErrTooLarge) after limit+1 bytes, so that what
// is held never exceeds what the caller expects of such a file.
func ReadInput(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, err := OpenInput(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read through ctx: a large regular file, which the read deadline
	// set by OpenInput does not reach, stops at the next read too.
	data, err := io.ReadAll(&ctxReader{ctx: ctx, r: io.LimitReader(f, limit+1)})
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w of %d bytes", path, ErrTooLarge, limit)
	}
	return data, nil
}

// inputType refuses, with an *InputError, a file mode OpenInput does not
// read: anything but a regular file or a FIFO.
func inputType(path string, m os.FileMode) error {
	if m.IsRegular() || m&os.ModeNamedPipe != 0 {
		return nil
	}
	return &InputError{Path: path, Err: fmt.Errorf("%w: is a %s, not a regular file or FIFO", ErrInput, typeName(m))}
}

// WriteErr is err from writing path, wrapped so that it names path once:
// an *fs.PathError of the file itself already does ("write /dev/full:
// no space left on device") and is returned as it is.
func WriteErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return err
	}
	return fmt.Errorf("write %s: %w", path, err)
}

// CheckInput returns the error OpenInput would give path without opening
// it: os.Stat's for a path that cannot be stat'ed (absent, or behind a
// directory that cannot be searched), an *InputError for a directory,
// socket or device, and nil for a regular file or FIFO. Commands that
// guess an input's format from its name call it before saying the name
// tells them nothing: a mistyped path, or a directory given for a file,
// is the likelier mistake, and that is what to say.
func CheckInput(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return inputType(path, fi.Mode())
}

// CheckRegular refuses, with an *InputError, a path that is not a regular
// file, without opening it (an open of a FIFO would block): for inputs
// that must be mapped or seeked, such as a store file.
func CheckRegular(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &InputError{Path: path, Err: fmt.Errorf("%w: is a %s; it must be a regular file", ErrInput, typeName(fi.Mode()))}
	}
	return nil
}

// BOM is the UTF-8 byte order mark some editors (Notepad, Excel's "CSV
// UTF-8") write at the start of a text file. It is no part of the first
// key or field: every text reader drops it (SkipBOM, or TrimPrefix of the
// first line).
var BOM = []byte{0xef, 0xbb, 0xbf}

// SkipBOM returns a reader of r without a leading BOM. It reads nothing
// until its first Read, so a FIFO is not waited on when it is made.
func SkipBOM(r io.Reader) io.Reader { return &bomSkipper{r: r} }

type bomSkipper struct {
	r       io.Reader
	started bool
	head    []byte // the first bytes read, when they were no BOM
	err     error  // the error of reading them, after head
}

func (b *bomSkipper) Read(p []byte) (int, error) {
	if !b.started {
		b.started = true
		var head [3]byte
		n, err := io.ReadFull(b.r, head[:])
		if n == len(head) && [3]byte(BOM) == head {
			n = 0
		}
		b.head = append([]byte(nil), head[:n]...)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			b.err = err
		} else if err != nil {
			b.err = io.EOF
		}
	}
	if len(b.head) > 0 {
		n := copy(p, b.head)
		b.head = b.head[n:]
		return n, nil
	}
	if b.err != nil {
		return 0, b.err
	}
	return b.r.Read(p)
}
