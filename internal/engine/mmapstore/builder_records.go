package mmapstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// writeBufSize is the size of the record write buffer.
const writeBufSize = 1 << 20

func uvarintLen(x uint64) int {
	var tmp [binary.MaxVarintLen64]byte
	return binary.PutUvarint(tmp[:], x)
}

// flush writes the buffered records to the temp file.
func (b *Builder) flush() error {
	if len(b.buf) == 0 {
		return nil
	}
	if b.bufStart >= HeaderSize {
		b.sumRecords(b.buf)
	} else {
		b.sumRecords(b.buf[HeaderSize-b.bufStart:])
	}
	if _, err := b.f.Write(b.buf); err != nil {
		return fmt.Errorf("mmapstore: build %s: write %s: %w", b.path, b.tmp, err)
	}
	b.bufStart += uint64(len(b.buf))
	b.buf = b.buf[:0]
	return nil
}

// sumRecords feeds record bytes, in file order, to the block checksums.
func (b *Builder) sumRecords(p []byte) {
	bs := uint64(1) << b.opts.blockShift
	for len(p) > 0 {
		n := min(uint64(len(p)), bs-b.blkFill)
		b.blk.Write(p[:n])
		b.blkFill += n
		p = p[n:]
		if b.blkFill == bs {
			b.endBlock()
		}
	}
}

// endBlock closes the records block being filled.
func (b *Builder) endBlock() {
	b.sums = append(b.sums, uint32(b.blk.Sum64()))
	b.blk.Reset()
	b.blkFill = 0
}

// readAt reads n bytes at file offset off, from the buffer or the file.
func (b *Builder) readAt(off, n uint64) ([]byte, error) {
	if off < b.bufStart && off+n > b.bufStart {
		if err := b.flush(); err != nil {
			return nil, err
		}
	}
	if off >= b.bufStart {
		return b.buf[off-b.bufStart : off-b.bufStart+n], nil
	}
	if uint64(cap(b.scratch)) < n {
		b.scratch = make([]byte, n)
	}
	p := b.scratch[:n]
	if _, err := b.f.ReadAt(p, int64(off)); err != nil {
		return nil, fmt.Errorf("mmapstore: build %s: read back %s: %w", b.path, b.tmp, err)
	}
	return p, nil
}

// sameBytes reports whether the file holds val at off.
func (b *Builder) sameBytes(off uint64, val []byte) (bool, error) {
	p, err := b.readAt(off, uint64(len(val)))
	if err != nil {
		return false, err
	}
	return string(p) == string(val), nil
}

// keyAt reads the key of the record at off (after the final flush).
func (b *Builder) keyAt(off uint64) ([]byte, error) {
	var hb [3*binary.MaxVarintLen64 + 1]byte
	n, err := b.f.ReadAt(hb[:], int64(off))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("mmapstore: build %s: read back %s: %w", b.path, b.tmp, err)
	}
	kl, p := binary.Uvarint(hb[:n])
	w, q := binary.Uvarint(hb[max(p, 0):n])
	if p <= 0 || q <= 0 {
		return nil, fmt.Errorf("mmapstore: build %s: record at %d unreadable in %s", b.path, off, b.tmp)
	}
	p += q
	if w&valTypedBit != 0 {
		p++
	}
	if w&valRefBit != 0 {
		_, q = binary.Uvarint(hb[min(p, n):n])
		if q <= 0 {
			return nil, fmt.Errorf("mmapstore: build %s: record at %d unreadable in %s", b.path, off, b.tmp)
		}
		p += q
	}
	key := make([]byte, kl)
	if _, err := b.f.ReadAt(key, int64(off)+int64(p)); err != nil {
		return nil, fmt.Errorf("mmapstore: build %s: read back %s: %w", b.path, b.tmp, err)
	}
	return key, nil
}
