package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The binary formats of libCacheSim beside oracleGeneral, read from
// their layouts as libCacheSim's trace readers define them (little
// endian, C struct alignment).

// lcsHeaderSize is the size of an lcs file's header.
const lcsHeaderSize = 1024

// lcsMagic is the header's start and end magic.
const lcsMagic = 0x123456789abcdef0

// The header's offsets: u64 start magic, a NUL-terminated format string
// of 240 bytes in Python struct syntax ("<IQIq"), then one byte each for
// the 1-based fields holding the object id, size, time, last and next
// access time, op, TTL, tenant and content type, reserved bytes, 64 int64
// statistics, u32 field count, u32 record size, u64 version, u64 end magic.
const (
	lcsFormatOff   = 8
	lcsFormatLen   = 240
	lcsIDField     = 248
	lcsSizeField   = 249
	lcsTimeField   = 250
	lcsNFieldsOff  = 1000
	lcsItemSizeOff = 1004
	lcsEndMagicOff = 1016
)

// lcsReadAhead is the lcs reader's buffer size.
const lcsReadAhead = 1 << 19

// lcsFieldSize is the width of a format character, 0 when unknown.
func lcsFieldSize(c byte) int {
	switch c {
	case 'c', 'b', 'B':
		return 1
	case 'h', 'H':
		return 2
	case 'i', 'I', 'l', 'L', 'f':
		return 4
	case 'q', 'Q', 'd':
		return 8
	}
	return 0
}

// lcsField is one field of an lcs record: its offset and format character.
type lcsField struct {
	off  int
	kind byte
}

// value reads the field as libCacheSim does: integers sign-extended for
// lowercase characters, zero-extended for uppercase, floats truncated.
func (f lcsField) value(rec []byte) int64 {
	b := rec[f.off:]
	switch f.kind {
	case 'c', 'b':
		return int64(int8(b[0]))
	case 'B':
		return int64(b[0])
	case 'h':
		return int64(int16(binary.LittleEndian.Uint16(b)))
	case 'H':
		return int64(binary.LittleEndian.Uint16(b))
	case 'i', 'l':
		return int64(int32(binary.LittleEndian.Uint32(b)))
	case 'I', 'L':
		return int64(binary.LittleEndian.Uint32(b))
	case 'f':
		return int64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case 'd':
		return int64(math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}
	return int64(binary.LittleEndian.Uint64(b))
}

// lcsReader reads an lcs file: the header is checked (both magics, a
// format string whose fields add up to the record size, field numbers
// within it) before the first record. The object id is the id field's
// bits; a size or time field, where the header names one, must not be
// negative, and the size must fit 32 bits; time keeps its low 32 bits.
type lcsReader struct {
	records
	id, size, time lcsField
	hasSize        bool
	hasTime        bool
	err            error
	started        bool
}

func newLCSReader(path string, r io.Reader) *lcsReader {
	l := &lcsReader{}
	l.records = records{path: path, r: r}
	return l
}

func (l *lcsReader) headerf(format string, args ...any) error {
	return &RecordError{Path: l.path, Record: 0, Err: fmt.Errorf("lcs: "+format, args...)}
}

func (l *lcsReader) readHeader() error {
	var h [lcsHeaderSize]byte
	n, err := io.ReadFull(l.r, h[:])
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		return io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return l.headerf("%d bytes, shorter than the %d-byte header (%w)", n, lcsHeaderSize, err)
	case err != nil:
		return l.headerf("read: %w", err)
	}
	if m := binary.LittleEndian.Uint64(h[:]); m != lcsMagic {
		return l.headerf("start magic %#x, want %#x (not an lcs trace)", m, uint64(lcsMagic))
	}
	if m := binary.LittleEndian.Uint64(h[lcsEndMagicOff:]); m != lcsMagic {
		return l.headerf("end magic %#x, want %#x", m, uint64(lcsMagic))
	}
	format := h[lcsFormatOff : lcsFormatOff+lcsFormatLen]
	end := bytes.IndexByte(format, 0)
	if end < 0 {
		return l.headerf("the format string is not NUL-terminated")
	}
	format = format[:end]
	if len(format) < 2 || format[0] != '<' {
		return l.headerf("format %q: want '<' (little endian) and at least one field", format)
	}
	fields := format[1:]
	var offs []lcsField
	width := 0
	for _, c := range fields {
		w := lcsFieldSize(c)
		if w == 0 {
			return l.headerf("format %q: unknown field type %q", format, c)
		}
		offs = append(offs, lcsField{off: width, kind: c})
		width += w
	}
	if n := binary.LittleEndian.Uint32(h[lcsNFieldsOff:]); int(n) != len(fields) {
		return l.headerf("%d fields, but the format %q has %d", n, format, len(fields))
	}
	if n := binary.LittleEndian.Uint32(h[lcsItemSizeOff:]); int(n) != width {
		return l.headerf("record size %d, but the format %q adds up to %d", n, format, width)
	}
	field := func(at int, what string, need bool) (lcsField, bool, error) {
		i := int(h[at])
		switch {
		case i == 0 && need:
			return lcsField{}, false, l.headerf("no %s field", what)
		case i == 0:
			return lcsField{}, false, nil
		case i > len(offs):
			return lcsField{}, false, l.headerf("%s field %d, but the format %q has %d fields", what, i, format, len(offs))
		}
		return offs[i-1], true, nil
	}
	if l.id, _, err = field(lcsIDField, "object id", true); err != nil {
		return err
	}
	if l.size, l.hasSize, err = field(lcsSizeField, "object size", false); err != nil {
		return err
	}
	if l.time, l.hasTime, err = field(lcsTimeField, "time", false); err != nil {
		return err
	}
	// A record is at most 239 x 8 bytes; the read-ahead stays about the
	// size every other binary reader's is, whatever the header claims.
	l.records = records{path: l.path, r: l.r, width: width, buf: make([]byte, width*max(1, lcsReadAhead/width))}
	return nil
}

// Next implements Reader.
func (l *lcsReader) Next(q *Request) error {
	if !l.started {
		l.started = true
		l.err = l.readHeader()
	}
	if l.err != nil {
		return l.err
	}
	rec, err := l.next()
	if err != nil {
		return err
	}
	*q = Request{Time: uint32(l.rec), ID: uint64(l.id.value(rec)), Size: DefaultSize, Next: NoNext}
	if l.hasSize {
		v := l.size.value(rec)
		if v < 0 || v > math.MaxUint32 {
			return &RecordError{Path: l.path, Record: l.rec, Err: fmt.Errorf("object size %d is not in 0..%d", v, uint32(math.MaxUint32))}
		}
		q.Size = uint32(v)
	}
	if l.hasTime {
		v := l.time.value(rec)
		if v < 0 {
			return &RecordError{Path: l.path, Record: l.rec, Err: fmt.Errorf("time %d is negative", v)}
		}
		q.Time = uint32(v)
	}
	return nil
}

// The vscsi records (VMware's vscsiStats block traces), version 1 of 32
// bytes (u32 serial, u32 length, u32 scatter-gather count, u16 command,
// u16 version, u64 block number, u64 time in µs) and version 2 of 40
// (u16 command, u16 version, u32 serial, u32 length, u32 sg count, u64
// block number, u64 time in µs, u64 response time). The version is the
// high byte of the version field; as libCacheSim does, the first two
// records tell which layout the file has.
const (
	vscsi1Size = 32
	vscsi2Size = 40
)

// vscsiReader yields the block number as the id, the length as the size
// and the time in seconds. A record whose version byte differs from the
// file's is malformed.
type vscsiReader struct {
	records
	version int
	started bool
	err     error
}

func newVSCSIReader(path string, r io.Reader) *vscsiReader {
	return &vscsiReader{records: records{path: path, r: r}}
}

func (v *vscsiReader) detect() error {
	head := make([]byte, 2*vscsi2Size)
	n, err := io.ReadFull(v.r, head)
	if n == 0 && errors.Is(err, io.EOF) {
		return io.EOF
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return &RecordError{Path: v.path, Record: 1, Err: fmt.Errorf("read: %w", err)}
	}
	head = head[:n]
	switch {
	case n >= 2*vscsi2Size && head[3] == 2 && head[vscsi2Size+3] == 2:
		v.version = 2
	case n >= 2*vscsi1Size && head[15] == 1 && head[vscsi1Size+15] == 1:
		v.version = 1
	default:
		return &RecordError{Path: v.path, Record: 1, Err: fmt.Errorf("not a vscsi trace: the first two records are neither version 1 (32 bytes) nor version 2 (40 bytes)")}
	}
	width := vscsi1Size
	if v.version == 2 {
		width = vscsi2Size
	}
	v.records = newRecords(v.path, io.MultiReader(bytes.NewReader(head), v.r), width)
	return nil
}

// Next implements Reader.
func (v *vscsiReader) Next(q *Request) error {
	if !v.started {
		v.started = true
		v.err = v.detect()
	}
	if v.err != nil {
		return v.err
	}
	rec, err := v.next()
	if err != nil {
		return err
	}
	verAt, lenAt := 15, 4
	if v.version == 2 {
		verAt, lenAt = 3, 8
	}
	if int(rec[verAt]) != v.version {
		return &RecordError{Path: v.path, Record: v.rec, Err: fmt.Errorf("version %d in a version %d trace", rec[verAt], v.version)}
	}
	*q = Request{
		Time: uint32(binary.LittleEndian.Uint64(rec[24:]) / 1_000_000),
		ID:   binary.LittleEndian.Uint64(rec[16:]),
		Size: binary.LittleEndian.Uint32(rec[lenAt:]),
		Next: NoNext,
	}
	return nil
}

// twrRecordSize is the size of a twr record: u32 time, u64 object id,
// u32 sizes (key size in the high 10 bits, value size in the low 22),
// u32 op and TTL (op in the high 8 bits, TTL in the low 24).
const twrRecordSize = 20

// twrMaxOp is the last operation libCacheSim defines (update); a record
// with a higher op is malformed.
const twrMaxOp = 14

// twrReader yields key size + value size as the object size; every
// operation is an access to its object, as in the Twitter CSV reader.
type twrReader struct{ records }

func newTWRReader(path string, r io.Reader) *twrReader {
	return &twrReader{newRecords(path, r, twrRecordSize)}
}

// Next implements Reader.
func (t *twrReader) Next(q *Request) error {
	rec, err := t.next()
	if err != nil {
		return err
	}
	kv := binary.LittleEndian.Uint32(rec[12:])
	if op := rec[19]; op > twrMaxOp {
		return &RecordError{Path: t.path, Record: t.rec, Err: fmt.Errorf("operation %d is not one of libCacheSim's (0..%d)", op, twrMaxOp)}
	}
	*q = Request{
		Time: binary.LittleEndian.Uint32(rec),
		ID:   binary.LittleEndian.Uint64(rec[4:]),
		Size: kv>>22 + kv&(1<<22-1),
		Next: NoNext,
	}
	return nil
}
