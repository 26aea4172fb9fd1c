package mmapstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// ErrEmptyInput means a build read no pairs and was not told that an
// empty store is wanted: replacing a good store by an empty one is far
// more often a mistake (wrong file, failed export) than an intent.
var ErrEmptyInput = errors.New("input holds no pairs")

// ErrEmptyKey means a pair had an empty key, which an input file can only
// mean by mistake.
var ErrEmptyKey = errors.New("empty key")

// ErrDestination means the output path cannot receive the file (its
// directory is missing, not a directory or not writable, or the path is
// a directory). Create checks it before anything is built.
var ErrDestination = errors.New("cannot write the destination")

// Source yields the pairs of a build with the input line each came from
// (records.Source satisfies it). Next returns io.EOF at the end; the
// key and the value need only stay valid until the following call. The
// value is a []byte, string, int64, float64, bool, []int64, []float64
// or []string, stored as that type (ValueOf).
type Source interface {
	Next() (key []byte, val any, line int64, err error)
}

// SourceOptions configures BuildFrom beyond BuildOptions.
type SourceOptions struct {
	// Name labels the input in errors ("data.tsv:12: ...").
	Name string
	// AllowEmpty lets a source without pairs produce an empty store.
	AllowEmpty bool
	// Progress, if set, is called every few thousand pairs with the
	// number added so far.
	Progress func(added int64)
}

// InputError is a problem with the input at a line: a malformed line, an
// empty key or a duplicate key (Err wraps the cause).
type InputError struct {
	Name string
	Line int64
	Err  error
}

func (e *InputError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %v", e.Name, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err)
}
func (e *InputError) Unwrap() error { return e.Err }

// lineError is a Source error that knows its line (records.LineError).
type lineError interface {
	error
	InputLine() int64
}

// BuildFrom builds path from every pair of src. It checks the
// destination before reading anything, stops with ctx's error when ctx
// is cancelled at any point up to the rename (the destination is then
// untouched and no temporary file remains), and names input lines in
// its errors.
func BuildFrom(ctx context.Context, path string, src Source, opts BuildOptions, so SourceOptions) (BuildResult, error) {
	b, err := Create(path, opts)
	if err != nil {
		return BuildResult{}, err
	}
	defer b.Abort() // removes the temp file unless Finish succeeded
	// lines maps the position of each Add to its input line, so that an
	// error found only when the index is built names the lines.
	lines := make([]int64, 0, max(opts.SizeHint, 0))
	var scratch []byte // typed values are encoded here, one at a time
	for n := int64(0); ; n++ {
		key, val, line, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			ie := &InputError{Name: so.Name, Line: line, Err: err}
			var le lineError
			if errors.As(err, &le) {
				ie.Line, ie.Err = le.InputLine(), errors.Unwrap(le)
			}
			return BuildResult{}, ie
		}
		if len(key) == 0 {
			return BuildResult{}, &InputError{Name: so.Name, Line: line, Err: ErrEmptyKey}
		}
		if raw, ok := val.([]byte); ok {
			err = b.Add(key, raw)
		} else {
			var v Value
			if v, err = appendValue(scratch[:0], val); err == nil {
				scratch = v.b
				err = b.AddValue(key, v)
			}
		}
		if errors.Is(err, ErrValue) {
			return BuildResult{}, &InputError{Name: so.Name, Line: line, Err: err}
		}
		if err != nil {
			return BuildResult{}, fmt.Errorf("%s:%d: %w", so.Name, line, err)
		}
		lines = append(lines, line)
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return BuildResult{}, fmt.Errorf("mmapstore: build %s: interrupted: %w", path, err)
			}
			if so.Progress != nil {
				so.Progress(n)
			}
		}
	}
	if len(lines) == 0 && !so.AllowEmpty {
		return BuildResult{}, &InputError{Name: so.Name, Err: ErrEmptyInput}
	}
	res, err := b.FinishContext(ctx)
	var de *DuplicateKeyError
	if errors.As(err, &de) && de.Second < int64(len(lines)) && de.First < int64(len(lines)) {
		return BuildResult{}, &InputError{Name: so.Name, Line: lines[de.Second],
			Err: fmt.Errorf("%w %s (first at line %d)", ErrDuplicateKey, strconv.Quote(string(clip(de.Key))), lines[de.First])}
	}
	if errors.Is(err, ErrProbeLimit) {
		return BuildResult{}, &InputError{Name: so.Name, Err: err}
	}
	return res, err
}

// checkDestination fails fast with ErrDestination when path cannot be
// written: its directory must exist and be a directory, and path must
// not be a directory. Writability is proven by creating the temp file.
func checkDestination(path, dir string) error {
	if fi, err := os.Stat(dir); err != nil {
		return fmt.Errorf("%w: directory %s: %w", ErrDestination, dir, err)
	} else if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrDestination, dir)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%w: %s is a directory", ErrDestination, path)
	}
	return nil
}
