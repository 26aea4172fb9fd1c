package records

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cachebench/cachebench/internal/fileio"
)

// MaxLine bounds one input line (TSV, JSONL), so a file without newlines
// cannot make the reader's buffer grow without limit.
const MaxLine = 256 << 20

// FormatHelp describes the input formats, for command help.
const FormatHelp = `Input formats, chosen by the file's extension (.tsv, .csv, .jsonl/.ndjson)
or --input-format:
  tsv    one "key<TAB>value" per line. Backslash escapes in keys and values:
         \\ \t \n \r \0 and \xHH; any other escape is an error. Blank lines
         are skipped and a trailing CR is dropped.
  csv    two columns per record (encoding/csv, RFC 4180 quoting).
  jsonl  one {"key": "...", "value": "..."} object per line, valid UTF-8;
         binary keys or values go in "key_b64" / "value_b64" (standard
         base64) instead.`

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

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// InputLine returns the line, for callers that name the file themselves.
func (e *LineError) InputLine() int64 { return e.Line }

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

// Input is an open source of pairs with its progress: Total is the
// expected end of Done (bytes of a file, pairs of a synthetic set).
type Input interface {
	Source
	Total() int64
	Done() int64
	Close() error
}

// OpenInput opens path as format ("" means from the extension), skipping
// its first line or record if skipHeader, or, when path is "", the
// synthetic set of n pairs. A FIFO's open and reads give up when ctx is
// cancelled; a socket, device or directory is refused (fileio.OpenInput).
func OpenInput(ctx context.Context, path, format string, skipHeader bool, n int64) (Input, error) {
	if path == "" {
		return NewSynthetic(n), nil
	}
	in, err := Open(ctx, path, format)
	if err != nil {
		return nil, err
	}
	if skipHeader {
		if _, _, _, err := in.Next(); err != nil && err != io.EOF {
			in.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return in, nil
}

// File is an open input file read by a Source.
type File struct {
	Source
	f    *os.File
	cr   *countingReader
	size int64
}

// Open opens path as format ("" means from the extension) through
// fileio.OpenInput.
func Open(ctx context.Context, path, format string) (*File, error) {
	if format == "" {
		var err error
		if format, err = FormatOf(path); err != nil {
			return nil, err
		}
	}
	f, err := fileio.OpenInput(ctx, path)
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

// Total is the file's size in bytes.
func (in *File) Total() int64 { return in.size }

// Done is how many bytes were read so far, for progress.
func (in *File) Done() int64 { return in.cr.n }

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

// Total is the number of pairs.
func (s *Synthetic) Total() int64 { return s.n }

// Close does nothing.
func (s *Synthetic) Close() error { return nil }
