package cachetrace

import (
	"encoding/binary"
	"fmt"
	"os"
)

// The default encoding: standard zstd frames (RFC 8878) that this package
// writes itself, specialised for the recorder's records, which any zstd
// decoder reads (klauspost's, libzstd's, the zstd command).
//
// Every record the recorder writes ends in the same 8 bytes: its next
// request, -1 (0xff x 8), since a recorder cannot know it. So each record
// after the first is one zstd sequence: 16 literal bytes (time, id,
// size) and a match of 8 bytes at offset 24, the previous record's end.
// All sequences of a block have the same codes, so the sequences section
// uses RLE mode for all three code types (one byte each, no FSE tables),
// the literals are a Raw literals section, and the bitstream carries only
// the codes' extra bits:
//
//	literal length 16: code 16, one extra bit (0)
//	match length 8:    code 5, no extra bits
//	offset 24:         code 4 with extra bits 11 (Offset_Value 27) in the
//	                   frame's first compressed block; code 0 (repeat
//	                   offset 1, which is 24 from then on) in the others
//
// A frame starts with no earlier bytes to match, so its first record is a
// Raw block of 24 bytes; and its repeat offsets start at 1, 4, 8, so its
// first compressed block spells out offset 24. Encoding a record then is a
// copy of its 16 bytes, and a file holds 16 bytes and one bit per record
// plus a few bytes per block: about 1.5 times smaller than the records, and
// several times cheaper to write than a general zstd encoder. Options
// Compact chooses klauspost's encoder instead, for about twice smaller
// files at a cost per record several times higher (see Options.Compact).
//
// The frame has no content size (it grows as records arrive) and no
// content checksum. Its window is 128 KiB, the largest block size; a match
// reaches back 24 bytes only. A file is one frame, ended on Close by an
// empty last Raw block, so a file cut anywhere before that (a killed
// process) is a frame that ends early, which the trace readers accept from
// a recorder's file (Marked) with a warning.

const (
	// entrySize is the part of a record that a shard stores and a block's
	// literals carry: u32 time, u64 id, u32 size.
	entrySize = 16
	// maxBlockRecords keeps a block's content within zstd's 128 KiB
	// Block_Maximum_Size: the records it decodes to are 24 bytes each.
	maxBlockRecords = (128 << 10) / RecordSize
	// windowDescriptor is Window_Size 128 KiB: Exponent 7 (1 << (10+7)),
	// Mantissa 0.
	windowDescriptor = 7 << 3

	blockRaw        = 0
	blockCompressed = 2

	llCode16      = 16 // literal length 16: baseline 16, 1 extra bit
	mlCode8       = 5  // match length 8: code + 3, no extra bits
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
	for len(entries) > 0 {
		n := min(len(entries)/entrySize, maxBlockRecords)
		dst = s.appendBlock(dst, entries[:n*entrySize], n)
		entries = entries[n*entrySize:]
	}
	return dst
}

// appendBlock appends one compressed block of n records.
func (s *frameState) appendBlock(dst, lit []byte, n int) []byte {
	ofCode, bitstreamLen := ofCodeRepeat1, n/8+1
	if !s.rep24 {
		ofCode, bitstreamLen = ofCodeLiteral, (5*n)/8+1
	}
	seqHeaderLen := 1 // Number_of_Sequences below 128; n < 0x7f00 takes 2
	if n >= 128 {
		seqHeaderLen = 2
	}
	size := 3 + len(lit) + seqHeaderLen + 1 + 3 + bitstreamLen
	dst = appendBlockHeader(dst, false, blockCompressed, size)

	// Literals section: Raw, Size_Format 11 (a 20-bit Regenerated_Size).
	l := len(lit)
	dst = append(dst, byte(3<<2|(l&0xf)<<4), byte(l>>4), byte(l>>12))
	dst = append(dst, lit...)

	// Sequences section header: Number_of_Sequences, the modes, and the
	// RLE symbols in the order literal length, offset, match length.
	if seqHeaderLen == 1 {
		dst = append(dst, byte(n))
	} else {
		dst = append(dst, byte(n>>8)+0x80, byte(n))
	}
	dst = append(dst, rleModes, llCode16, byte(ofCode), mlCode8)

	if s.rep24 {
		// n zero bits (each sequence's literal-length bit), then the end
		// marker.
		for range n / 8 {
			dst = append(dst, 0)
		}
		dst = append(dst, 1<<(n%8))
	} else {
		dst = appendExplicitBitstream(dst, n)
		s.rep24 = true
	}
	return dst
}

// appendExplicitBitstream appends the bitstream of n sequences with
// offset code 4. The decoder reads it backwards from the end marker, per
// sequence the offset's 4 extra bits then the literal length's one; the
// encoder therefore writes forwards, sequence by sequence from the last,
// the literal-length bit (0) first and the offset bits (11) above it.
func appendExplicitBitstream(dst []byte, n int) []byte {
	var acc uint64
	var bits uint
	for range n {
		acc |= ofExtra24 << (bits + 1) // the literal-length bit below is 0
		bits += 5
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

// outBuffer is how many encoded bytes frameCodec gathers before a write.
const outBuffer = 128 << 10

func newFrameCodec(f *os.File, written int64) *frameCodec {
	c := &frameCodec{f: f, written: written, out: make([]byte, 0, outBuffer+maxBlockRecords*entrySize+64)}
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
