package trace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// OracleRecordSize is the size of one oracleGeneral record.
const OracleRecordSize = 24

// OracleReader decodes oracleGeneral records from a stream. It reads in
// large blocks and decodes in place, which is what lets a replay of a
// plain file run at tens of millions of requests per second.
type OracleReader struct {
	path     string
	r        io.Reader
	buf      []byte
	pos, end int
	rec      int64
	done     bool
}

// NewOracleReader reads oracleGeneral records from r; path names the
// source in errors.
func NewOracleReader(path string, r io.Reader) *OracleReader {
	return &OracleReader{path: path, r: r, buf: make([]byte, OracleRecordSize*(1<<14))}
}

// Next implements Reader.
func (o *OracleReader) Next(q *Request) error {
	if o.end-o.pos < OracleRecordSize {
		if err := o.fill(); err != nil {
			return err
		}
	}
	b := o.buf[o.pos : o.pos+OracleRecordSize : o.pos+OracleRecordSize]
	q.Time = binary.LittleEndian.Uint32(b)
	q.ID = binary.LittleEndian.Uint64(b[4:])
	q.Size = binary.LittleEndian.Uint32(b[12:])
	q.Next = int64(binary.LittleEndian.Uint64(b[16:]))
	if q.Next < 0 || q.Next == math.MaxInt64 {
		q.Next = NoNext
	}
	o.pos += OracleRecordSize
	o.rec++
	return nil
}

// fill moves the partial record left in the buffer to its front and reads
// until a whole record is there or the stream ends.
func (o *OracleReader) fill() error {
	n := copy(o.buf, o.buf[o.pos:o.end])
	o.pos, o.end = 0, n
	for !o.done && o.end < OracleRecordSize {
		m, err := o.r.Read(o.buf[o.end:])
		o.end += m
		if errors.Is(err, io.EOF) {
			o.done = true
		} else if err != nil {
			return &RecordError{Path: o.path, Record: o.rec + 1, Err: fmt.Errorf("read: %w", err)}
		}
	}
	switch {
	case o.end >= OracleRecordSize:
		return nil
	case o.end == 0:
		return io.EOF
	}
	return &RecordError{Path: o.path, Record: o.rec + 1,
		Err: fmt.Errorf("truncated: %d of %d bytes (%w)", o.end, OracleRecordSize, io.ErrUnexpectedEOF)}
}

// PutOracle encodes q as one oracleGeneral record into b (24 bytes).
func PutOracle(b []byte, q *Request) {
	binary.LittleEndian.PutUint32(b, q.Time)
	binary.LittleEndian.PutUint64(b[4:], q.ID)
	binary.LittleEndian.PutUint32(b[12:], q.Size)
	binary.LittleEndian.PutUint64(b[16:], uint64(q.Next))
}
