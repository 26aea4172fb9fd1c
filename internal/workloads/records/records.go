package records

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MaxLine bounds one input line (TSV, JSONL), so a file without newlines
// cannot make the reader's buffer grow without limit.
const MaxLine = 256 << 20

// Formats lists the input formats Open accepts.
var Formats = []string{"tsv", "csv", "jsonl"}

// ErrUnknownFormat is returned (wrapped) for a format name or file
// extension that names no reader.
var ErrUnknownFormat = errors.New("unknown input format")

// Source yields pairs and the input line each came from.
type Source interface {
	// Next returns the next pair (valid until the following call), the
	// line it came from, or io.EOF. Errors are *LineError.
	Next() (key, val []byte, line int64, err error)
}

// LineError is a malformed input line.
type LineError struct {
	Line int64
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

func lineErr(line int64, format string, args ...any) error {
	return &LineError{Line: line, Err: fmt.Errorf(format, args...)}
}

// FormatOf returns the format named by path's extension.
func FormatOf(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".tsv", ".tab", ".txt":
		return "tsv", nil
	case ".csv":
		return "csv", nil
	case ".jsonl", ".ndjson":
		return "jsonl", nil
	}
	return "", fmt.Errorf("%w: cannot tell the format of %s from its extension (valid: %s)", ErrUnknownFormat, path, strings.Join(Formats, ", "))
}

// File is an open input file read by a Source.
type File struct {
	Source
	f    *os.File
	cr   *countingReader
	size int64
}

// Open opens path as format ("" means from the extension).
func Open(path, format string) (*File, error) {
	if format == "" {
		var err error
		if format, err = FormatOf(path); err != nil {
			return nil, err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open input: %w", err)
	}
	in := &File{f: f, cr: &countingReader{r: f}}
	if fi, err := f.Stat(); err == nil {
		in.size = fi.Size()
	}
	switch format {
	case "tsv":
		in.Source = NewTSV(in.cr)
	case "csv":
		in.Source = NewCSV(in.cr)
	case "jsonl", "json":
		in.Source = NewJSONL(in.cr)
	default:
		f.Close()
		return nil, fmt.Errorf("%w %q (valid: %s)", ErrUnknownFormat, format, strings.Join(Formats, ", "))
	}
	return in, nil
}

// Size is the file's size in bytes; Read is how many were read so far.
func (in *File) Size() int64 { return in.size }

// Read is how many bytes were read so far, for progress.
func (in *File) Read() int64 { return in.cr.n }

// Close closes the file.
func (in *File) Close() error { return in.f.Close() }

// countingReader counts the bytes read, for progress.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Synthetic yields key_%d → val_%d for i in [0, n), the benchmark data set.
type Synthetic struct {
	i, n     int64
	key, val []byte
}

// NewSynthetic returns the synthetic source of n pairs.
func NewSynthetic(n int64) *Synthetic { return &Synthetic{n: n} }

// Next implements Source; the line is the pair's 1-based position.
func (s *Synthetic) Next() ([]byte, []byte, int64, error) {
	if s.i >= s.n {
		return nil, nil, 0, io.EOF
	}
	s.key = strconv.AppendInt(append(s.key[:0], "key_"...), s.i, 10)
	s.val = strconv.AppendInt(append(s.val[:0], "val_"...), s.i, 10)
	s.i++
	return s.key, s.val, s.i, nil
}

// Done is how many pairs were yielded, for progress.
func (s *Synthetic) Done() int64 { return s.i }
