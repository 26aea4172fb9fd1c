package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// The torn-end rule. A file that a cachetrace recorder wrote (it starts
// with the recorder's zstd skippable frame, cachetrace.Marked) may end in
// the middle: the process was killed, or the file is read while it is
// still being written. Its zstd stream then ends early and its last record
// may be torn. Read as oracleGeneral, such a file yields every complete
// record, and the reader writes one warning to Warnings naming the file
// and how many records it read. Anywhere else (any other file, or a
// recorder's file whose stream ended cleanly but with a torn record, or
// one corrupt in the middle) a torn or unreadable record is the
// *RecordError it always is.

// Warnings is where trace readers write warnings: one line per event,
// for the user (progress and logs go to stderr, never to stdout).
var Warnings io.Writer = os.Stderr

var warnMu sync.Mutex

func warnf(format string, args ...any) {
	warnMu.Lock()
	defer warnMu.Unlock()
	fmt.Fprintf(Warnings, format+"\n", args...)
}

// zstdStart reports whether b starts a zstd stream: a frame, or a
// skippable frame (magic 0x184D2A50..5F), which the decoder skips and
// cachetrace's files begin with.
func zstdStart(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	return string(b[:4]) == "\x28\xb5\x2f\xfd" || (b[0]&0xf0 == 0x50 && string(b[1:4]) == "\x2a\x4d\x18")
}

// tornTail passes a recorder file's decompressed bytes through in whole
// records, holding back a partial one until it knows whether the stream
// ended cleanly (the partial record is then passed on, for the reader to
// report) or early (it is dropped, with the warning).
type tornTail struct {
	path    string
	r       io.Reader
	width   int
	pending []byte // a partial record read and not yet passed on
	read    int64  // bytes passed on
	err     error  // the end, once reached
}

func newTornTail(path string, r io.Reader, width int) *tornTail {
	return &tornTail{path: path, r: r, width: width, pending: make([]byte, 0, width)}
}

func (t *tornTail) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	if len(p) < 2*t.width {
		return 0, fmt.Errorf("%s: read buffer of %d bytes is smaller than two records", t.path, len(p))
	}
	for {
		n := copy(p, t.pending)
		m, err := t.r.Read(p[n:])
		n += m
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			// The stream ended early: what is whole is passed on.
			whole := n - n%t.width
			t.read += int64(whole)
			msg := fmt.Sprintf("%s: the recording ends early (its recorder was killed, or is still writing): %d complete records read",
				t.path, t.read/int64(t.width))
			if torn := n % t.width; torn > 0 {
				msg += fmt.Sprintf(", a torn last record of %d bytes left out", torn)
			}
			warnf("%s", msg)
			t.pending, t.err = t.pending[:0], io.EOF
			if whole == 0 {
				return 0, io.EOF
			}
			return whole, nil
		case err != nil:
			// A clean end passes a partial record on: the reader reports it.
			t.pending, t.err = t.pending[:0], err
			t.read += int64(n)
			if n == 0 {
				return 0, err
			}
			return n, nil
		}
		whole := n - n%t.width
		t.pending = append(t.pending[:0], p[whole:n]...)
		if whole > 0 {
			t.read += int64(whole)
			return whole, nil
		}
	}
}
