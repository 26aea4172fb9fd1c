package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/ulikunitz/xz"
)

// maxXZDict bounds the LZMA2 dictionary an xz trace may ask for. The
// decoder allocates the dictionary its block header names before reading
// any data, up to 4 GiB, so a corrupt or hostile 40-byte file could ask
// for gigabytes; 64 MiB is the dictionary of xz -9, the largest preset.
const maxXZDict = 64 << 20

// errXZDict is returned (wrapped) for a dictionary above maxXZDict.
var errXZDict = errors.New("xz dictionary larger than 64 MiB")

// newXZ checks the dictionary size of the first block of the xz stream in
// br (the only block of a file xz writes on one thread), then returns its
// decompressor.
func newXZ(path string, br *bufio.Reader) (io.Reader, error) {
	if dict, ok := xzFirstDict(br); ok && dict > maxXZDict {
		return nil, fmt.Errorf("%s: %w (the first block asks for %d bytes)", path, errXZDict, dict)
	}
	xr, err := xz.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("%s: xz: %w", path, err)
	}
	return xr, nil
}

// xzFirstDict reads, without consuming it, the LZMA2 dictionary size of
// the first block header of an xz stream (xz file format 1.0.4, sections
// 2.1.1, 3.1 and 5.3.1): the 12-byte stream header, then the block
// header's size byte, its flags, optional compressed and uncompressed
// sizes (varints), and the filter flags, LZMA2's being ID 0x21 with one
// property byte. It reports false when the header cannot be read that
// far or holds no LZMA2 filter; the decoder then reports what is wrong.
func xzFirstDict(br *bufio.Reader) (uint64, bool) {
	head, err := br.Peek(12 + 1)
	if err != nil || head[12] == 0 { // 0: an index, no block
		return 0, false
	}
	size := 12 + (int(head[12])+1)*4
	b, err := br.Peek(size)
	if err != nil {
		b = b[:len(b):len(b)]
	}
	p := 13
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
