package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// The column formats: a CSV or TSV log whose columns are named in the
// format, csv[key=2,size=3,time=1,header]:FILE. Options:
//
//	key=C   the column holding the key; hashed with xxhash64, as text keys are
//	id=C    instead of key: the column holds the object id, a decimal uint64
//	size=C  the object size in bytes, a decimal uint32 (else DefaultSize)
//	time=C  the timestamp, a decimal uint32 (else the record number)
//	header  the first line names the columns and is not a request
//
// A column C is 1-based, or, with header, a name of the header line.
// Without key or id the key is column 1. Fields are split at every
// separator (',' for csv, a tab for tsv) and trimmed of spaces; quotes are
// not interpreted. csv:FILE and tsv:FILE are column formats with no
// options: column 1 is the key.
const (
	CSV Format = "csv"
	TSV Format = "tsv"
)

// columnSpec is a parsed column format.
type columnSpec struct {
	sep                   byte
	key, size, time       string // column numbers or header names; "" when absent
	hashed, header, sized bool
}

// isColumnFormat reports whether f is a column format, with or without
// options.
func isColumnFormat(f Format) bool {
	base, _, _ := strings.Cut(string(f), "[")
	return base == string(CSV) || base == string(TSV)
}

// columnFormat recognises a column format name: csv or tsv, optionally
// followed by [options]; the options are checked by parseColumns.
func columnFormat(s string) (Format, bool) {
	base, opts, bracket := strings.Cut(s, "[")
	base = strings.ToLower(base)
	if base != string(CSV) && base != string(TSV) {
		return "", false
	}
	if !bracket {
		return Format(base), true
	}
	return Format(base + "[" + opts), true
}

// parseColumns checks a column format's options.
func parseColumns(f Format) (columnSpec, error) {
	base, opts, bracket := strings.Cut(string(f), "[")
	c := columnSpec{sep: ',', key: "1", hashed: true}
	if base == string(TSV) {
		c.sep = '\t'
	}
	if !bracket {
		return c, nil
	}
	opts, closed := strings.CutSuffix(opts, "]")
	if !closed {
		return c, fmt.Errorf("%w %q: the options end with ']'", ErrUnknownFormat, f)
	}
	seenKey := false
	for _, o := range strings.Split(opts, ",") {
		name, val, hasVal := strings.Cut(strings.TrimSpace(o), "=")
		switch {
		case name == "header" && !hasVal:
			c.header = true
			continue
		case name == "" && !hasVal && opts == "":
			continue
		case !hasVal || val == "":
			return c, fmt.Errorf("%w %q: option %q wants a column (key=, id=, size=, time=) or is header", ErrUnknownFormat, f, o)
		}
		switch name {
		case "key", "id":
			if seenKey {
				return c, fmt.Errorf("%w %q: give one of key= and id=", ErrUnknownFormat, f)
			}
			seenKey, c.key, c.hashed = true, val, name == "key"
		case "size":
			c.size, c.sized = val, true
		case "time":
			c.time = val
		default:
			return c, fmt.Errorf("%w %q: unknown option %q (valid: key=, id=, size=, time=, header)", ErrUnknownFormat, f, name)
		}
	}
	for _, col := range []string{c.key, c.size, c.time} {
		if col == "" {
			continue
		}
		if n, err := strconv.Atoi(col); err == nil {
			if n < 1 || n > maxColumns {
				return c, fmt.Errorf("%w %q: column %d is not in 1..%d", ErrUnknownFormat, f, n, maxColumns)
			}
		} else if !c.header {
			return c, fmt.Errorf("%w %q: column %q is a name, which needs the header option", ErrUnknownFormat, f, col)
		}
	}
	return c, nil
}

// maxColumns bounds a column number: a log line has tens of fields.
const maxColumns = 1024

// columnReader reads a column format.
type columnReader struct {
	*lines
	spec            columnSpec
	key, size, time int // 0-based; -1 when absent
	fields          [][]byte
	started         bool
	err             error
}

func newColumnReader(path string, f Format, r io.Reader) Reader {
	spec, err := parseColumns(f)
	c := &columnReader{lines: newLines(path, r), spec: spec, err: err, size: -1, time: -1}
	if err == nil && !spec.header {
		c.key, _ = strconv.Atoi(spec.key)
		c.key--
		c.size = columnIndex(spec.size, nil)
		c.time = columnIndex(spec.time, nil)
	}
	return c
}

// columnIndex is the 0-based index of column col (a number, or a name of
// header), or -1 when col is "" or not found.
func columnIndex(col string, header [][]byte) int {
	if col == "" {
		return -1
	}
	if n, err := strconv.Atoi(col); err == nil {
		return n - 1
	}
	for i, h := range header {
		if string(h) == col {
			return i
		}
	}
	return -1
}

func (c *columnReader) split(line []byte) [][]byte {
	c.fields = c.fields[:0]
	for {
		i := bytes.IndexByte(line, c.spec.sep)
		if i < 0 {
			c.fields = append(c.fields, bytes.TrimSpace(line))
			return c.fields
		}
		c.fields = append(c.fields, bytes.TrimSpace(line[:i]))
		line = line[i+1:]
	}
}

// readHeader reads the header line and finds the named columns in it.
func (c *columnReader) readHeader() error {
	line, err := c.nextNonEmpty(false)
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	if err != nil {
		return err
	}
	h := c.split(line)
	for _, x := range []struct {
		col string
		to  *int
	}{{c.spec.key, &c.key}, {c.spec.size, &c.size}, {c.spec.time, &c.time}} {
		*x.to = columnIndex(x.col, h)
		if x.col != "" && *x.to < 0 {
			return c.errorf("the header has no column %q (it has %q)", x.col, bytes.Join(h, []byte{c.spec.sep}))
		}
	}
	return nil
}

func (c *columnReader) Next(q *Request) error {
	if c.err != nil {
		return c.err
	}
	if !c.started {
		c.started = true
		if c.spec.header {
			if err := c.readHeader(); err != nil {
				c.err = err
				return err
			}
		}
	}
	line, err := c.nextNonEmpty(false)
	if err != nil {
		return err
	}
	f := c.split(line)
	need := max(c.key, c.size, c.time) + 1
	if len(f) < need {
		return c.errorf("want at least %d fields, got %d", need, len(f))
	}
	*q = Request{Time: uint32(c.no), Size: DefaultSize, Next: NoNext}
	key := f[c.key]
	if len(key) == 0 {
		return c.errorf("empty key in column %d", c.key+1)
	}
	if c.spec.hashed {
		q.ID = xxhash.Sum64(key)
	} else if q.ID, err = c.uint(key, "object id", 64); err != nil {
		return err
	}
	if c.size >= 0 {
		v, err := c.uint(f[c.size], "size", 32)
		if err != nil {
			return err
		}
		q.Size = uint32(v)
	}
	if c.time >= 0 {
		v, err := c.uint(f[c.time], "time", 32)
		if err != nil {
			return err
		}
		q.Time = uint32(v)
	}
	return nil
}
