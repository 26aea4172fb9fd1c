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
  csv    two columns per record (encoding/csv, RFC 4180 quoting). A CR LF
         inside a quoted field is read as LF (encoding/csv's rule): a value
         that must keep a CR goes in TSV (\r) or JSONL ("\r").
  jsonl  one {"key": "...", "value": VALUE} object per line, valid UTF-8
         whose \u escapes are valid UTF-16 (a lone surrogate such as
         \udc00 is refused with its line, never replaced by U+FFFD);
         binary keys or values go in "key_b64" / "value_b64" (standard
         base64) instead.
A UTF-8 byte order mark at the start of the file is dropped, in every format.
Value types: TSV and CSV values are bytes unless --value-type says
otherwise (numbers as strconv reads them, bool as true/false/1/0, lists as
JSON arrays: [0.5, 1]). A JSON value keeps its JSON type: a string is a
string, an integer an int64, another number a float64, true/false a bool,
an array of integers an int64s, of numbers a float64s, of strings a
strings; value_b64 is bytes. A mixed array, an array of booleans, a nested
array, an object or null is an error naming the line. With --value-type
every JSON value must convert to it (an integer to a float, a string to
bytes: --value-type bytes stores JSON strings as untyped bytes).`

// Formats lists the input formats Open accepts.
var Formats = []string{"tsv", "csv", "jsonl"}

// ErrUnknownFormat is returned (wrapped) for a format name or file
// extension that names no reader.
var ErrUnknownFormat = errors.New("unknown input format")

// Source yields pairs and the input line each came from.
type Source interface {
	// Next returns the next pair (valid until the following call), the
	// line it came from, or io.EOF. Errors are *LineError. The value is
	// the Go value of its Kind: []byte, string, int64, float64, bool,
	// []int64, []float64 or []string.
	Next() (key []byte, val any, line int64, err error)
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

// FormatOf returns the format named by path's extension. For an
// extension it does not know, a path that is no readable file (absent, a
// directory) gets that error instead (fileio.CheckInput).
func FormatOf(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".tsv", ".tab", ".txt":
		return "tsv", nil
	case ".csv":
		return "csv", nil
	case ".jsonl", ".ndjson":
		return "jsonl", nil
	}
	if err := fileio.CheckInput(path); err != nil {
		return "", err
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

// OpenInput opens path as format ("" means from the extension), its
// values parsed as vt, skipping its first line or record if skipHeader,
// or, when path is "", the synthetic set of n pairs with values of vt. A
// FIFO's open and reads give up when ctx is cancelled; a socket, device or
// directory is refused (fileio.OpenInput).
func OpenInput(ctx context.Context, path, format string, skipHeader bool, n int64, vt ValueType) (Input, error) {
	if path == "" {
		return NewSynthetic(n, vt)
	}
	in, err := Open(ctx, path, format, vt)
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
// fileio.OpenInput, its values parsed as vt.
func Open(ctx context.Context, path, format string, vt ValueType) (*File, error) {
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
		in.Source = NewTSV(in.cr, vt)
	case "csv":
		in.Source = NewCSV(in.cr, vt)
	case "jsonl", "json":
		in.Source = NewJSONL(in.cr, vt)
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

// Synthetic yields key_%d → a value of i for i in [0, n), the benchmark
// data set. The values, by kind (a list of length L):
//
//	bytes     val_%d (the default: what the benchmarks store)
//	string    val_%d
//	int64     i
//	float64   i + 0.5
//	bool      i is odd
//	int64s    i·L + j for j in [0, L)
//	float64s  i + j/4 for j in [0, L) (exact; they sum to L·i + L(L−1)/8)
//	strings   val_%d_%d (i, j) for j in [0, L)
type Synthetic struct {
	i, n     int64
	vt       ValueType
	key, val []byte
	ints     []int64
	floats   []float64
	strs     []string
}

// NewSynthetic returns the synthetic source of n pairs with values of
// vt; a list type needs a length.
func NewSynthetic(n int64, vt ValueType) (*Synthetic, error) {
	if vt.Kind.list() && vt.Len == 0 {
		return nil, fmt.Errorf("synthetic %s values need a length (for example %s:32)", vt.Kind, vt.Kind)
	}
	return &Synthetic{n: n, vt: vt}, nil
}

// Next implements Source; the line is the pair's 1-based position. A
// list is reused by the next call.
func (s *Synthetic) Next() ([]byte, any, int64, error) {
	if s.i >= s.n {
		return nil, nil, 0, io.EOF
	}
	i, l := s.i, s.vt.Len
	s.key = strconv.AppendInt(append(s.key[:0], "key_"...), i, 10)
	var v any
	switch s.vt.Kind {
	case Bytes, String:
		s.val = strconv.AppendInt(append(s.val[:0], "val_"...), i, 10)
		v = s.val
		if s.vt.Kind == String {
			v = string(s.val)
		}
	case Int64:
		v = i
	case Float64:
		v = float64(i) + 0.5
	case Bool:
		v = i%2 == 1
	case Int64s:
		s.ints = s.ints[:0]
		for j := range l {
			s.ints = append(s.ints, i*int64(l)+int64(j))
		}
		v = s.ints
	case Float64s:
		s.floats = s.floats[:0]
		for j := range l {
			s.floats = append(s.floats, float64(i)+float64(j)/4)
		}
		v = s.floats
	case Strings:
		s.strs = s.strs[:0]
		for j := range l {
			s.strs = append(s.strs, "val_"+strconv.FormatInt(i, 10)+"_"+strconv.Itoa(j))
		}
		v = s.strs
	}
	s.i++
	return s.key, v, s.i, nil
}

// Done is how many pairs were yielded, for progress.
func (s *Synthetic) Done() int64 { return s.i }

// Total is the number of pairs.
func (s *Synthetic) Total() int64 { return s.n }

// Close does nothing.
func (s *Synthetic) Close() error { return nil }
