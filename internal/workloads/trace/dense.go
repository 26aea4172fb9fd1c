package trace

import (
	"encoding/binary"
	"io"
)

// NormalizedRecordSize is the size of one record of a normalized copy
// (Normalized): the object's dense number (u32), its size (u32) and the
// index of the object's next request (i64, NoNext if none), little-endian.
// It is oracleGeneral without the timestamp, which no replay reads, and
// with a 4-byte ID, which the dense numbering (idMap) never exceeds: a
// third less to write and to read on every replay.
const NormalizedRecordSize = 16

// putNormalized encodes q, whose ID is dense, as one normalized record.
func putNormalized(b []byte, q *Request) {
	_ = b[NormalizedRecordSize-1]
	binary.LittleEndian.PutUint32(b, uint32(q.ID))
	binary.LittleEndian.PutUint32(b[4:], q.Size)
	binary.LittleEndian.PutUint64(b[8:], uint64(q.Next))
}

// NormalizedFields decodes the dense object number, size and next request
// (NoNext if none) of the normalized record at the start of b.
func NormalizedFields(b []byte) (id uint64, size uint32, next int64) {
	_ = b[NormalizedRecordSize-1]
	id = uint64(binary.LittleEndian.Uint32(b))
	size = binary.LittleEndian.Uint32(b[4:])
	next = int64(binary.LittleEndian.Uint64(b[8:]))
	return id, size, next
}

// normalizedReader reads the records of a normalized copy; a request's
// Time is its index in the trace.
type normalizedReader struct{ records }

func newNormalizedReader(path string, r io.Reader) *normalizedReader {
	return &normalizedReader{newRecords(path, r, NormalizedRecordSize)}
}

// Next implements Reader.
func (d *normalizedReader) Next(q *Request) error {
	b, err := d.next()
	if err != nil {
		return err
	}
	q.Time = uint32(d.rec - 1)
	q.ID, q.Size, q.Next = NormalizedFields(b)
	return nil
}
