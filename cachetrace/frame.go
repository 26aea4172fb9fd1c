package cachetrace

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"
)

// The default encoding: standard zstd frames (RFC 8878) that this package
// writes itself, specialised for the recorder's records, which any zstd
// decoder reads (klauspost's, libzstd's, the zstd command).
//
// Every record the recorder writes ends in the same 8 bytes: its next
// request, -1 (0xff x 8), since a recorder cannot know it. And records
// come in runs of one time, the recorder's clock being in seconds. So
// each record after the first is one zstd sequence: its literals, then a
// match at offset 24 (the previous record) of its -1 and, when the next
// record has the same time, of that record's time too:
//
//	sequence  literals              match
//	A         time, id, size (16)   -1 (8)             time changes next
//	B         id, size (12)         -1, next time (12) inside a run
//	C         time, id, size (16)   -1, next time (12) a run's first
//	D         id, size (12)         -1 (8)             a run's last
//
// A block holds sequences of one kind, so all its sequences have the same
// codes: the sequences section uses RLE mode for all three code types (one
// byte each, no FSE tables), the literals are a Raw literals section, and
// the bitstream carries only the codes' extra bits:
//
//	literal length 16: code 16, one extra bit (0); 12: code 12, none
//	match length 8: code 5; 12: code 9; no extra bits
//	offset 24: code 4 with extra bits 11 (Offset_Value 27) in the frame's
//	           first compressed block; code 0 (repeat offset 1, which is
//	           24 from then on) in the others
//
// A run of one time is then a C block, a B block and a D block (C and D
// hold one record each), and a time that changes at every record gives A
// blocks. A frame starts with no earlier bytes to match, so its first
// record is a Raw block of 24 bytes; and its repeat offsets start at 1, 4,
// 8, so its first compressed block spells out offset 24. The last record
// a write is given ends its run (the next record's time is not known yet),
// so the blocks end on a record and what is written decodes to whole
// records.
//
// Encoding a record is then a copy of its 12 or 16 bytes and a compare of
// two times; a file holds 12 bytes per record inside runs, 16 and a bit
// where the time changes at every record, and a few bytes per block.
//
// The frame has no content size (it grows as records arrive) and no
// content checksum. Its window is 128 KiB, the largest block size; a match
// reaches back 24 bytes only. A file is one frame, ended on Close by an
// empty last Raw block, so a file cut anywhere before that (a killed
// process) is a frame that ends early, which the trace readers accept from
// a recorder's file (Marked) with a warning.

const (
	// entrySize is the part of a record that a shard stores: u32 time,
	// u64 id, u32 size.
	entrySize = 16
	// maxBlockRecords keeps a block's content within zstd's 128 KiB
	// Block_Maximum_Size: the records of an A or B block decode to 24
	// bytes each (C and D blocks hold one record).
	maxBlockRecords = (128 << 10) / RecordSize
	// windowDescriptor is Window_Size 128 KiB: Exponent 7 (1 << (10+7)),
	// Mantissa 0.
	windowDescriptor = 7 << 3

	blockRaw        = 0
	blockCompressed = 2

	llCode16      = 16 // literal length 16: baseline 16, 1 extra bit
	llCode12      = 12 // literal length 12: the code itself, no extra bits
	mlCode8       = 5  // match length 8: code + 3, no extra bits
	mlCode12      = 9  // match length 12
	ofCodeLiteral = 4  // Offset_Value 16 + 11 = 27 = offset 24 + 3
	ofExtra24     = 11 // the 4 extra bits of ofCodeLiteral
	ofCodeRepeat1 = 0  // Offset_Value 1: Repeated_Offset1
	rleModes      = 1<<6 | 1<<4 | 1<<2
)

// appendFrameHeader appends a frame's magic number and header: no content
// size, no checksum, no dictionary, a 128 KiB window.
func appendFrameHeader(dst []byte) []byte {
	return append(dst, 0x28, 0xb5, 0x2f, 0xfd, 0, windowDescriptor)
}

// appendFrameEnd appends the empty last block that ends a frame.
func appendFrameEnd(dst []byte) []byte {
	return appendBlockHeader(dst, true, blockRaw, 0)
}

func appendBlockHeader(dst []byte, last bool, typ, size int) []byte {
	h := uint32(typ<<1 | size<<3)
	if last {
		h |= 1
	}
	return append(dst, byte(h), byte(h>>8), byte(h>>16))
}

// frameState is what encoding a frame's next blocks depends on.
type frameState struct {
	started bool // the first record was written, as a Raw block
	rep24   bool // a compressed block was written: Repeated_Offset1 is 24
}

// seqKind is the shape of a record's sequence (A, B, C or D above).
type seqKind struct {
	timeLiteral bool // the record's time is a literal, not the previous match's end
	timeMatched bool // the match goes on over the next record's time
}

// appendEntries appends the blocks that encode entries (entrySize bytes
// per record) as records with next request -1.
func (s *frameState) appendEntries(dst, entries []byte) []byte {
	if len(entries) == 0 {
		return dst
	}
	if !s.started {
		dst = appendBlockHeader(dst, false, blockRaw, RecordSize)
		dst = append(dst, entries[:entrySize]...)
		dst = append(dst, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
		entries = entries[entrySize:]
		s.started = true
	}
	n := len(entries) / entrySize
	// sameNext reports whether entry j+1 exists and has entry j's time.
	sameNext := func(j int) bool {
		return j+1 < n && binary.LittleEndian.Uint32(entries[j*entrySize:]) == binary.LittleEndian.Uint32(entries[(j+1)*entrySize:])
	}
	timeLiteral := true // a write starts on a record: the blocks before end on one
	for i := 0; i < n; {
		k := seqKind{timeLiteral, sameNext(i)}
		j := i + 1
		// Only A and B sequences follow their own kind: after a C or a
		// D the time's being a literal changes.
		switch {
		case k.timeLiteral && !k.timeMatched: // A
			for j < n && j-i < maxBlockRecords && !sameNext(j) {
				j++
			}
		case !k.timeLiteral && k.timeMatched: // B
			for j < n && j-i < maxBlockRecords && sameNext(j) {
				j++
			}
		}
		dst = s.appendBlock(dst, entries[i*entrySize:j*entrySize], j-i, k)
		timeLiteral = !k.timeMatched
		i = j
	}
	return dst
}

// appendBlock appends one compressed block of n records' sequences of
// kind k.
func (s *frameState) appendBlock(dst, entries []byte, n int, k seqKind) []byte {
	llCode, llBits, lit := llCode12, 0, 12*n
	if k.timeLiteral {
		llCode, llBits, lit = llCode16, 1, 16*n
	}
	mlCode := mlCode8
	if k.timeMatched {
		mlCode = mlCode12
	}
	ofCode, ofBits := ofCodeRepeat1, 0
	if !s.rep24 {
		ofCode, ofBits = ofCodeLiteral, 4
	}
	bitstreamLen := n*(llBits+ofBits)/8 + 1
	seqHeaderLen := 1 // Number_of_Sequences below 128; n < 0x7f00 takes 2
	if n >= 128 {
		seqHeaderLen = 2
	}
	size := 3 + lit + seqHeaderLen + 1 + 3 + bitstreamLen
	dst = appendBlockHeader(dst, false, blockCompressed, size)

	// Literals section: Raw, Size_Format 11 (a 20-bit Regenerated_Size).
	dst = append(dst, byte(3<<2|(lit&0xf)<<4), byte(lit>>4), byte(lit>>12))
	if k.timeLiteral {
		dst = append(dst, entries...)
	} else {
		at := len(dst)
		dst = slices.Grow(dst, lit)[:at+lit]
		for o, e := dst[at:], entries; len(e) >= entrySize && len(o) >= 12; o, e = o[12:], e[entrySize:] {
			binary.LittleEndian.PutUint64(o, binary.LittleEndian.Uint64(e[4:]))
			binary.LittleEndian.PutUint32(o[8:], binary.LittleEndian.Uint32(e[12:]))
		}
	}

	// Sequences section header: Number_of_Sequences, the modes, and the
	// RLE symbols in the order literal length, offset, match length.
	if seqHeaderLen == 1 {
		dst = append(dst, byte(n))
	} else {
		dst = append(dst, byte(n>>8)+0x80, byte(n))
	}
	dst = append(dst, rleModes, byte(llCode), byte(ofCode), byte(mlCode))
	s.rep24 = true
	return appendBitstream(dst, n, uint(llBits), uint(ofBits))
}

// appendBitstream appends the bitstream of n identical sequences whose
// literal length has llBits extra bits (0) and whose offset has ofBits (0,
// or 4 of value 11). The decoder reads it backwards from the end marker,
// per sequence the offset's bits then the literal length's; the encoder
// therefore writes forwards, sequence by sequence from the last, the
// literal-length bits first and the offset bits above them.
func appendBitstream(dst []byte, n int, llBits, ofBits uint) []byte {
	if ofBits == 0 { // all bits are 0: zero bytes, then the end marker
		bits := n * int(llBits)
		for range bits / 8 {
			dst = append(dst, 0)
		}
		return append(dst, 1<<(bits%8))
	}
	var acc uint64
	var bits uint
	for range n {
		acc |= ofExtra24 << (bits + llBits)
		bits += llBits + ofBits
		for bits >= 8 {
			dst = append(dst, byte(acc))
			acc >>= 8
			bits -= 8
		}
	}
	acc |= 1 << bits // end marker
	return append(dst, byte(acc))
}

// frameCodec writes a file's records as one frame of the default
// encoding, buffering whole blocks up to outBuffer bytes between writes.
type frameCodec struct {
	f       *os.File
	state   frameState
	out     []byte
	written int64
}

const (
	// outBuffer is how many encoded bytes frameCodec gathers before a
	// write.
	outBuffer = 128 << 10
	// maxEncodedRecord bounds a record's encoded size: a block of one
	// record with its headers, or the first record's Raw block. The
	// buffer has room for a write of BatchRecords such records beyond
	// outBuffer, so that encoding never allocates.
	maxEncodedRecord = 3 + 3 + entrySize + 1 + 1 + 3 + 1
)

func newFrameCodec(f *os.File, written int64) *frameCodec {
	c := &frameCodec{f: f, written: written, out: make([]byte, 0, outBuffer+BatchRecords*maxEncodedRecord)}
	c.out = appendFrameHeader(c.out)
	return c
}

func (c *frameCodec) write(entries []byte) error {
	c.out = c.state.appendEntries(c.out, entries)
	if len(c.out) >= outBuffer {
		return c.flush()
	}
	return nil
}

func (c *frameCodec) flush() error {
	if len(c.out) == 0 {
		return nil
	}
	n, err := c.f.Write(c.out)
	c.written += int64(n)
	c.out = c.out[:0]
	if err != nil {
		return fmt.Errorf("cachetrace: write %s: %w", c.f.Name(), err)
	}
	return nil
}

func (c *frameCodec) close() error {
	c.out = appendFrameEnd(c.out)
	return c.flush()
}

func (c *frameCodec) size() int64 { return c.written + int64(len(c.out)) }

// putEntry writes one request's entry: what appendEntries and
// expandEntries read.
func putEntry(b []byte, time uint32, id uint64, size uint32) {
	binary.LittleEndian.PutUint32(b, time)
	binary.LittleEndian.PutUint64(b[4:], id)
	binary.LittleEndian.PutUint32(b[12:], size)
}
