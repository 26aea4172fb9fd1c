package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/cespare/xxhash/v2"

	"github.com/cachebench/cachebench/internal/fileio"
)

// maxLine bounds a text record: a trace line is tens of bytes, and a
// binary file read as text must fail fast instead of buffering gigabytes.
const maxLine = 64 << 10

// lines splits a stream into lines without allocating per line.
type lines struct {
	path string
	br   *bufio.Reader
	no   int64
}

func newLines(path string, r io.Reader) *lines {
	// SkipBOM also hides r's type: NewReaderSize would return a larger
	// *bufio.Reader as is, and the line limit would then be its size. A
	// byte order mark would otherwise be part of the first key.
	return &lines{path: path, br: bufio.NewReaderSize(fileio.SkipBOM(r), maxLine)}
}

// next returns the next line without its end of line, valid until the
// following call, or io.EOF.
func (l *lines) next() ([]byte, error) {
	line, err := l.br.ReadSlice('\n')
	if len(line) == 0 && errors.Is(err, io.EOF) {
		return nil, io.EOF
	}
	l.no++
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, l.errorf("line longer than %d bytes (not a text trace?)", maxLine)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, &RecordError{Path: l.path, Record: l.no, Err: fmt.Errorf("read: %w", err)}
	}
	line = bytes.TrimRight(line, "\r\n")
	return line, nil
}

func (l *lines) errorf(format string, args ...any) error {
	return &RecordError{Path: l.path, Record: l.no, Err: fmt.Errorf(format, args...)}
}

// nextNonEmpty skips blank lines (and, with skipStar, LIRS "*" markers).
func (l *lines) nextNonEmpty(skipStar bool) ([]byte, error) {
	for {
		line, err := l.next()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || (skipStar && len(line) == 1 && line[0] == '*') {
			continue
		}
		return line, nil
	}
}

func (l *lines) uint(field []byte, what string, bits int) (uint64, error) {
	v, err := strconv.ParseUint(string(field), 10, bits)
	if err != nil {
		return 0, l.errorf("%s %q is not an unsigned integer", what, field)
	}
	return v, nil
}

// arcReader expands "start count ..." lines into count requests for the
// blocks start, start+1, ...
type arcReader struct {
	*lines
	block, left uint64
	n           uint32
}

// maxARCCount bounds one line's expansion: ARC traces request a few
// blocks per line, and a corrupt count must not replay billions.
const maxARCCount = 1 << 24

func (a *arcReader) Next(q *Request) error {
	for a.left == 0 {
		line, err := a.nextNonEmpty(false)
		if err != nil {
			return err
		}
		f := bytes.Fields(line)
		if len(f) < 2 {
			return a.errorf("want 'start count ...', got %q", line)
		}
		if a.block, err = a.uint(f[0], "start block", 64); err != nil {
			return err
		}
		if a.left, err = a.uint(f[1], "block count", 64); err != nil {
			return err
		}
		if a.left == 0 || a.left > maxARCCount {
			return a.errorf("block count %d out of range 1..%d", a.left, maxARCCount)
		}
	}
	*q = Request{Time: a.n, ID: a.block, Size: DefaultSize, Next: NoNext}
	a.block++
	a.left--
	a.n++
	return nil
}

// lirsReader reads one block number per line.
type lirsReader struct{ *lines }

func (r *lirsReader) Next(q *Request) error {
	line, err := r.nextNonEmpty(true)
	if err != nil {
		return err
	}
	id, err := r.uint(line, "block number", 64)
	if err != nil {
		return err
	}
	*q = Request{Time: uint32(r.no), ID: id, Size: DefaultSize, Next: NoNext}
	return nil
}

// textReader reads one key per line and hashes it.
type textReader struct{ *lines }

func (r *textReader) Next(q *Request) error {
	line, err := r.nextNonEmpty(false)
	if err != nil {
		return err
	}
	*q = Request{Time: uint32(r.no), ID: xxhash.Sum64(line), Size: DefaultSize, Next: NoNext}
	return nil
}

// twitterReader reads Twitter's cache-trace CSV. Every operation is
// replayed as an access to its key (as libCacheSim does by default), with
// key size + value size as the object size; the operation must be one of
// the memcached commands the traces record.
type twitterReader struct{ *lines }

var twitterOps = map[string]bool{
	"get": true, "gets": true, "set": true, "add": true, "replace": true, "cas": true,
	"append": true, "prepend": true, "delete": true, "incr": true, "decr": true,
}

func (r *twitterReader) Next(q *Request) error {
	line, err := r.nextNonEmpty(false)
	if err != nil {
		return err
	}
	f := bytes.Split(line, []byte{','})
	if len(f) != 7 {
		return r.errorf("want 7 comma-separated fields (timestamp,key,key size,value size,client,op,TTL), got %d", len(f))
	}
	ts, err := r.uint(f[0], "timestamp", 32)
	if err != nil {
		return err
	}
	ks, err := r.uint(f[2], "key size", 32)
	if err != nil {
		return err
	}
	vs, err := r.uint(f[3], "value size", 32)
	if err != nil {
		return err
	}
	if !twitterOps[string(f[5])] {
		return r.errorf("unknown operation %q", f[5])
	}
	if len(f[1]) == 0 {
		return r.errorf("empty key")
	}
	size := min(ks+vs, 1<<32-1)
	*q = Request{Time: uint32(ts), ID: xxhash.Sum64(f[1]), Size: uint32(max(size, 1)), Next: NoNext}
	return nil
}

// adaptSizeReader reads the AdaptSize sample traces: "time id size"
// lines, the id and size decimal, the size in bytes. Each request carries
// its own size: an object whose size changes is replayed with the size of
// each request (the replay's miss stores the new size), and a size of 0
// counts for the object hit ratio and adds nothing to the byte hit ratio.
// A size that does not fit 32 bits is a malformed record, never an
// allocation.
type adaptSizeReader struct{ *lines }

func (r *adaptSizeReader) Next(q *Request) error {
	line, err := r.nextNonEmpty(false)
	if err != nil {
		return err
	}
	f := bytes.Fields(line)
	if len(f) != 3 {
		return r.errorf("want 'time id size', got %d fields", len(f))
	}
	ts, err := r.uint(f[0], "time", 64)
	if err != nil {
		return err
	}
	id, err := r.uint(f[1], "object id", 64)
	if err != nil {
		return err
	}
	size, err := r.uint(f[2], "size", 32)
	if err != nil {
		return err
	}
	*q = Request{Time: uint32(ts), ID: id, Size: uint32(size), Next: NoNext}
	return nil
}

// addressReader reads address traces ("s 0x1fffff50 1": an operation, a
// hexadecimal address, more fields); the address, with or without its 0x,
// is the key.
type addressReader struct{ *lines }

func (r *addressReader) Next(q *Request) error {
	line, err := r.nextNonEmpty(false)
	if err != nil {
		return err
	}
	f := bytes.Fields(line)
	if len(f) < 2 {
		return r.errorf("want 'op address ...', got %q", line)
	}
	hex := f[1]
	if len(hex) > 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X') {
		hex = hex[2:]
	}
	id, err := strconv.ParseUint(string(hex), 16, 64)
	if err != nil {
		return r.errorf("address %q is not a 64-bit hexadecimal number", f[1])
	}
	*q = Request{Time: uint32(r.no), ID: id, Size: DefaultSize, Next: NoNext}
	return nil
}
