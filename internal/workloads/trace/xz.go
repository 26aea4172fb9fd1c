package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
)

// maxXZDict bounds the LZMA2 dictionary an xz trace may ask for. The
// decoder allocates the dictionary each block header names before reading
// that block's data, up to 4 GiB, so a corrupt or hostile file of a few
// bytes per stream could ask for gigabytes; 64 MiB is the dictionary of
// xz -9, the largest preset.
const maxXZDict = 64 << 20

// errXZDict is returned (wrapped) for a dictionary above maxXZDict.
var errXZDict = errors.New("xz dictionary larger than 64 MiB")

// errXZTruncated is returned (wrapped) for an xz file that ends inside a
// stream: its header, a block, the index or the footer.
var errXZTruncated = errors.New("xz file truncated")

// newXZ returns the decompressor of the xz streams in br, read through an
// xzWalker: every block header of every stream has its dictionary checked
// before the decoder sees it, and a file that ends inside a stream is
// refused instead of read as a shorter trace.
func newXZ(path string, br *bufio.Reader) (io.Reader, error) {
	w := &xzWalker{r: br}
	w.expect(4, w.streamStart, "a stream header")
	// The decoder's dictionary is the larger of its config's and the
	// block's: the smallest config leaves it to each block, so a small
	// trace does not get the default 8 MiB.
	xr, err := xz.ReaderConfig{DictCap: lzma.MinDictCap}.NewReader(w)
	if err != nil {
		if errors.Is(err, errXZTruncated) {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: %w inside its first stream header", path, errXZTruncated)
		}
		return nil, fmt.Errorf("%s: xz: %w", path, err)
	}
	return xr, nil
}

// xzWalker passes the bytes of an xz file through unchanged while
// following its container structure (xz file format 1.0.4): stream
// header, blocks, index, footer, stream padding, the next stream. The
// compressed data of a block is LZMA2 chunks, each of which names its
// compressed size, so the structure is followed without decompressing
// anything. It refuses a block whose LZMA2 dictionary exceeds maxXZDict,
// and an end of file anywhere but between streams. What it cannot follow
// (a block without an LZMA2 filter, a malformed chunk) it stops following
// and leaves to the decoder, which refuses such a file itself.
type xzWalker struct {
	r    io.Reader
	off  int64 // bytes passed through
	err  error // sticky: the refusal
	lost bool  // no longer following (see above)

	want  int                // bytes to collect into acc before calling next
	acc   []byte             //
	skip  int64              // bytes to pass without looking at them
	next  func([]byte) error // what to make of acc
	where string             // what is being read, for a truncation
	after func() error       // called once skip bytes were passed
	clean bool               // between streams: an end of file is fine

	stream, block int    // 1-based, for messages
	checkSize     int64  // bytes of each block's check field
	dataStart     int64  // offset of the current block's compressed data
	indexStart    int64  // offset of the current index's indicator
	counted       bool   // the index's record count was read
	varints       uint64 // varints of the index still to read
	v             uint64 // the varint being read
	varintBytes   int
}

func (w *xzWalker) Read(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.r.Read(p)
	if !w.lost {
		if ferr := w.feed(p[:n]); ferr != nil {
			w.err = ferr
			return 0, ferr
		}
		if errors.Is(err, io.EOF) && !w.atEnd() {
			w.err = fmt.Errorf("%w inside %s, after %d bytes", errXZTruncated, w.where, w.off)
			return n, w.err
		}
	}
	return n, err
}

// atEnd reports whether the file may end here: between streams, or in
// the stream padding after one.
func (w *xzWalker) atEnd() bool { return w.clean && len(w.acc) == 0 && w.skip == 0 }

// expect collects n bytes, then calls next with them.
func (w *xzWalker) expect(n int, next func([]byte) error, where string) {
	w.want, w.acc, w.next, w.where, w.clean = n, w.acc[:0], next, where, false
}

// pass skips n bytes, then calls after.
func (w *xzWalker) pass(n int64, after func() error, where string) {
	w.skip, w.after, w.where, w.acc = n, after, where, w.acc[:0]
}

func (w *xzWalker) feed(p []byte) error {
	for len(p) > 0 && !w.lost {
		if w.skip > 0 {
			k := min(int64(len(p)), w.skip)
			w.skip -= k
			p = p[k:]
			w.off += k
			if w.skip == 0 {
				if err := w.after(); err != nil {
					return err
				}
			}
			continue
		}
		k := min(len(p), w.want-len(w.acc))
		w.acc = append(w.acc, p[:k]...)
		p = p[k:]
		w.off += int64(k)
		if len(w.acc) == w.want {
			if err := w.next(w.acc); err != nil {
				return err
			}
		}
	}
	return nil
}

// stop gives up following the structure; the decoder judges the rest.
func (w *xzWalker) stop() error { w.lost = true; return nil }

// streamStart reads the first 4 bytes where a stream may begin: 4 zero
// bytes are stream padding, anything else the start of a stream header.
func (w *xzWalker) streamStart(b []byte) error {
	if b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 0 {
		w.expect(4, w.streamStart, "stream padding")
		w.clean = w.stream > 0
		return nil
	}
	head := append([]byte(nil), b...)
	w.expect(8, func(rest []byte) error {
		h := append(head, rest...)
		if string(h[:6]) != string(xzMagic) || h[6] != 0 {
			return w.stop() // not a stream header: the decoder says so
		}
		// Check sizes by check type: 0; 4 (CRC32) for 1-3; 8 (CRC64)
		// for 4-6; 16, 32, 64 for the types reserved after.
		c := int64(h[7] & 0x0f)
		w.checkSize = 0
		if c > 0 {
			w.checkSize = 4 << ((c - 1) / 3)
		}
		w.stream++
		w.block = 0
		w.expect(1, w.blockOrIndex, "a block header")
		return nil
	}, "a stream header")
	return nil
}

// blockOrIndex reads the byte after the stream header or a block: 0 is
// the index indicator, anything else the size of a block header.
func (w *xzWalker) blockOrIndex(b []byte) error {
	if b[0] == 0 {
		w.indexStart = w.off - 1
		w.counted, w.v, w.varintBytes = false, 0, 0
		w.expect(1, w.indexByte, "the index")
		return nil
	}
	size := (int(b[0]) + 1) * 4
	w.block++
	w.expect(size-1, func(rest []byte) error {
		dict, ok := xzBlockDict(append([]byte{b[0]}, rest...))
		if !ok {
			return w.stop()
		}
		if dict > maxXZDict {
			return fmt.Errorf("%w (block %d of stream %d asks for %d bytes)", errXZDict, w.block, w.stream, dict)
		}
		w.dataStart = w.off
		w.expect(1, w.chunk, "a block")
		return nil
	}, "a block header")
	return nil
}

// chunk reads the control byte of an LZMA2 chunk and passes its data.
func (w *xzWalker) chunk(b []byte) error {
	c := b[0]
	switch {
	case c == 0: // end of the LZMA2 data: block padding, then the check
		pad := (4 - (w.off-w.dataStart)%4) % 4
		w.pass(pad+w.checkSize, func() error {
			w.expect(1, w.blockOrIndex, "a block header")
			return nil
		}, "a block")
		if pad+w.checkSize == 0 {
			w.expect(1, w.blockOrIndex, "a block header")
		}
	case c == 1 || c == 2: // uncompressed chunk: 2-byte size - 1
		w.expect(2, func(s []byte) error {
			w.passChunk(int64(s[0])<<8 | int64(s[1]) + 1)
			return nil
		}, "a block")
	case c >= 0x80: // LZMA chunk: 2 more bytes of unpacked size, 2 of packed size - 1, props if c >= 0xc0
		w.expect(4, func(s []byte) error {
			n := int64(s[2])<<8 | int64(s[3]) + 1
			if c >= 0xc0 {
				n++
			}
			w.passChunk(n)
			return nil
		}, "a block")
	default:
		return w.stop()
	}
	return nil
}

// passChunk passes n bytes of chunk data, then reads the next chunk.
func (w *xzWalker) passChunk(n int64) {
	w.pass(n, func() error {
		w.expect(1, w.chunk, "a block")
		return nil
	}, "a block")
}

// indexByte reads the index's varints one byte at a time: the record
// count, then two per record (unpadded and uncompressed size); then it
// passes the index padding, its CRC32 and the stream footer.
func (w *xzWalker) indexByte(b []byte) error {
	w.v |= uint64(b[0]&0x7f) << (7 * w.varintBytes)
	w.varintBytes++
	if b[0]&0x80 != 0 {
		if w.varintBytes == 9 {
			return w.stop()
		}
		w.expect(1, w.indexByte, "the index")
		return nil
	}
	v := w.v
	w.v, w.varintBytes = 0, 0
	if !w.counted {
		if v > 1<<60 {
			return w.stop()
		}
		w.counted, w.varints = true, 2*v
	} else {
		w.varints--
	}
	if w.varints > 0 {
		w.expect(1, w.indexByte, "the index")
		return nil
	}
	pad := (4 - (w.off-w.indexStart)%4) % 4
	w.pass(pad+4+12, func() error { // padding, CRC32, stream footer
		w.expect(4, w.streamStart, "stream padding")
		w.clean = true
		return nil
	}, "the index and footer")
	return nil
}

// xzBlockDict reads the LZMA2 dictionary size of a whole block header b
// (xz file format 1.0.4, section 3.1 and 5.3.1): its size byte, flags,
// optional compressed and uncompressed sizes (varints), and the filter
// flags, LZMA2's being ID 0x21 with one property byte. It reports false
// when b holds no LZMA2 filter or is malformed; the decoder then reports
// what is wrong.
func xzBlockDict(b []byte) (uint64, bool) {
	p := 1
	if p >= len(b) {
		return 0, false
	}
	flags := b[p]
	p++
	varint := func() (uint64, bool) {
		var v uint64
		for i := 0; i < 9 && p < len(b); i++ {
			c := b[p]
			p++
			v |= uint64(c&0x7f) << (7 * i)
			if c&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	if flags&0x40 != 0 {
		if _, ok := varint(); !ok {
			return 0, false
		}
	}
	if flags&0x80 != 0 {
		if _, ok := varint(); !ok {
			return 0, false
		}
	}
	for range int(flags&3) + 1 {
		id, ok := varint()
		if !ok {
			return 0, false
		}
		n, ok := varint()
		if !ok || n > uint64(len(b)-p) {
			return 0, false
		}
		if id == 0x21 && n == 1 {
			bits := b[p]
			if bits > 40 {
				return 0, false
			}
			if bits == 40 {
				return 1<<32 - 1, true
			}
			return uint64(2|bits&1) << (bits/2 + 11), true
		}
		p += int(n)
	}
	return 0, false
}
