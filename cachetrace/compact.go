package cachetrace

import (
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// compactCodec writes a file's records with klauspost's zstd encoder
// (Options.Compact): a general encoder finds the repeats between records
// (keys requested again, equal timestamps), so the file is smaller than
// frameCodec's, at a cost per record several times higher.
type compactCodec struct {
	f       *os.File
	enc     *zstd.Encoder
	cw      countingWriter
	records []byte // entries expanded to whole records
}

func newCompactCodec(f *os.File, written int64) (*compactCodec, error) {
	c := &compactCodec{f: f, cw: countingWriter{w: f, n: written}, records: make([]byte, 0, BatchRecords*RecordSize)}
	enc, err := zstd.NewWriter(&c.cw, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		return nil, fmt.Errorf("cachetrace: zstd writer for %s: %w", f.Name(), err)
	}
	c.enc = enc
	return c, nil
}

func (c *compactCodec) write(entries []byte) error {
	c.records = expandEntries(c.records[:0], entries)
	if _, err := c.enc.Write(c.records); err != nil {
		return fmt.Errorf("cachetrace: write %s: %w", c.f.Name(), err)
	}
	return nil
}

func (c *compactCodec) flush() error {
	if err := c.enc.Flush(); err != nil {
		return fmt.Errorf("cachetrace: write %s: %w", c.f.Name(), err)
	}
	return nil
}

func (c *compactCodec) close() error {
	if err := c.enc.Close(); err != nil {
		return fmt.Errorf("cachetrace: write %s: %w", c.f.Name(), err)
	}
	return nil
}

func (c *compactCodec) size() int64 { return c.cw.n }

// expandEntries appends entries (entrySize bytes each) as oracleGeneral
// records, with next request -1.
func expandEntries(dst, entries []byte) []byte {
	for ; len(entries) >= entrySize; entries = entries[entrySize:] {
		dst = append(dst, entries[:entrySize]...)
		dst = append(dst, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	}
	return dst
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
