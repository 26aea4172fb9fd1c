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

// records hands out the fixed-width records of a stream. It reads in
// large blocks and the decoders read each record in place, which is what
// lets a replay of a plain file run at tens of millions of requests per
// second.
type records struct {
	path     string
	r        io.Reader
	buf      []byte
	width    int
	pos, end int
	rec      int64 // records handed out
	done     bool
}

func newRecords(path string, r io.Reader, width int) records {
	return records{path: path, r: r, width: width, buf: make([]byte, width*(1<<14))}
}

// next returns the next record, valid until the following call, io.EOF
// after the last one, or a *RecordError for a truncated record or a
// failed read (a corrupt compressed stream).
func (o *records) next() ([]byte, error) {
	if o.end-o.pos < o.width {
		if err := o.fill(); err != nil {
			return nil, err
		}
	}
	b := o.buf[o.pos : o.pos+o.width : o.pos+o.width]
	o.pos += o.width
	o.rec++
	return b, nil
}

// fill moves the partial record left in the buffer to its front and reads
// until a whole record is there or the stream ends.
func (o *records) fill() error {
	n := copy(o.buf, o.buf[o.pos:o.end])
	o.pos, o.end = 0, n
	for !o.done && o.end < o.width {
		m, err := o.r.Read(o.buf[o.end:])
		o.end += m
		if errors.Is(err, io.EOF) {
			o.done = true
		} else if err != nil {
			return &RecordError{Path: o.path, Record: o.rec + 1, Err: fmt.Errorf("read: %w", err)}
		}
	}
	switch {
	case o.end >= o.width:
		return nil
	case o.end == 0:
		return io.EOF
	}
	return &RecordError{Path: o.path, Record: o.rec + 1,
		Err: fmt.Errorf("truncated: %d of %d bytes (%w)", o.end, o.width, io.ErrUnexpectedEOF)}
}

// OracleReader decodes oracleGeneral records from a stream.
type OracleReader struct{ records }

// NewOracleReader reads oracleGeneral records from r; path names the
// source in errors.
func NewOracleReader(path string, r io.Reader) *OracleReader {
	return &OracleReader{newRecords(path, r, OracleRecordSize)}
}

// Next implements Reader.
func (o *OracleReader) Next(q *Request) error {
	b, err := o.next()
	if err != nil {
		return err
	}
	q.Time = binary.LittleEndian.Uint32(b)
	q.ID, q.Size, q.Next = oracleFields(b)
	return nil
}

// oracleFields decodes the object ID, size and next request (NoNext when
// there is none: a negative value or math.MaxInt64) of the oracleGeneral
// record at the start of b.
func oracleFields(b []byte) (id uint64, size uint32, next int64) {
	_ = b[OracleRecordSize-1]
	id = binary.LittleEndian.Uint64(b[4:])
	size = binary.LittleEndian.Uint32(b[12:])
	next = int64(binary.LittleEndian.Uint64(b[16:]))
	if next < 0 || next == math.MaxInt64 {
		next = NoNext
	}
	return id, size, next
}

// PutOracle encodes q as one oracleGeneral record into b (24 bytes).
func PutOracle(b []byte, q *Request) {
	binary.LittleEndian.PutUint32(b, q.Time)
	binary.LittleEndian.PutUint64(b[4:], q.ID)
	binary.LittleEndian.PutUint32(b[12:], q.Size)
	binary.LittleEndian.PutUint64(b[16:], uint64(q.Next))
}

// binaryReader reads the key-only binary traces: one big-endian key of
// 4 bytes (cache2k's int32, CloudPhysics' uint32) or 8 bytes (Scarab's
// and Corda's int64) per record, nothing else. A key is the object ID as
// its bits read unsigned (a negative int32 key k is ID 2^32+k), which
// keeps distinct keys distinct. Every record is a valid key, so the only
// malformed record is a truncated last one.
type binaryReader struct{ records }

func newBinaryReader(path string, r io.Reader, width int) *binaryReader {
	return &binaryReader{newRecords(path, r, width)}
}

// Next implements Reader.
func (b *binaryReader) Next(q *Request) error {
	rec, err := b.next()
	if err != nil {
		return err
	}
	var id uint64
	if b.width == 4 {
		id = uint64(binary.BigEndian.Uint32(rec))
	} else {
		id = binary.BigEndian.Uint64(rec)
	}
	*q = Request{Time: uint32(b.rec), ID: id, Size: DefaultSize, Next: NoNext}
	return nil
}
