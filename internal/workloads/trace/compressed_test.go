package trace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/ulikunitz/xz"
)

// keyLines is a text trace of n requests.
func keyLines(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "k%d\n", i)
	}
	return []byte(b.String())
}

// xzStream compresses data as one xz stream of blocks of blockSize bytes.
func xzStream(t *testing.T, data []byte, blockSize int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := xz.WriterConfig{BlockSize: blockSize, DictCap: 64 << 10}.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// xzBlockHeaders finds the block headers of an xz file: the offsets whose
// size byte, CRC32 and LZMA2 filter make a valid header.
func xzBlockHeaders(b []byte) []int {
	var out []int
	for h := 12; h < len(b); h++ {
		size := (int(b[h]) + 1) * 4
		if b[h] == 0 || h+size > len(b) {
			continue
		}
		if crc32.ChecksumIEEE(b[h:h+size-4]) != binary.LittleEndian.Uint32(b[h+size-4:]) {
			continue
		}
		if _, ok := xzBlockDict(b[h : h+size]); ok {
			out = append(out, h)
		}
	}
	return out
}

// setXZDict rewrites the dictionary of the block header at h to bits,
// with its CRC32 made right again: only the dictionary is wrong.
func setXZDict(t *testing.T, b []byte, h int, bits byte) {
	t.Helper()
	size := (int(b[h]) + 1) * 4
	i := bytes.Index(b[h:h+size], []byte{0x21, 0x01})
	if i < 0 {
		t.Fatalf("no LZMA2 filter in the header at %d", h)
	}
	b[h+i+2] = bits
	binary.LittleEndian.PutUint32(b[h+size-4:], crc32.ChecksumIEEE(b[h:h+size-4]))
}

// The dictionary cap holds for every block of every stream, not only the
// first block of the first: a small stream, then streams asking for
// 128 MiB each, reached gigabytes.
func TestXZDictionaryEveryStreamAndBlock(t *testing.T) {
	plain := keyLines(4000)
	small := xzStream(t, plain[:100], 1<<20)
	multi := xzStream(t, plain, 4096)
	blocks := xzBlockHeaders(multi)
	if len(blocks) < 3 {
		t.Fatalf("want a stream of several blocks, found headers at %v", blocks)
	}
	// A good file of two streams, the second of several blocks, reads whole.
	good := append(append(bytes.Clone(small), 0, 0, 0, 0), multi...)
	reqs, err := openAll(t, writeTemp(t, "good.txt.xz", good), Text)
	if err != nil || len(reqs) != 4000+bytes.Count(plain[:100], []byte{'\n'}) {
		t.Fatalf("good multi-stream file: %d requests, %v", len(reqs), err)
	}
	for _, c := range []struct {
		name  string
		block int // which block header of multi gets the large dictionary
	}{{"second stream, first block", 0}, {"second stream, third block", 2}} {
		bad := bytes.Clone(multi)
		setXZDict(t, bad, blocks[c.block], 30) // 128 MiB
		file := append(append(bytes.Clone(small), 0, 0, 0, 0), bad...)
		_, err := openAll(t, writeTemp(t, "bad.txt.xz", file), Text)
		if !errors.Is(err, errXZDict) || !strings.Contains(err.Error(), fmt.Sprintf("block %d of stream 2", c.block+1)) {
			t.Errorf("%s: %v, want the dictionary refused naming the block", c.name, err)
		}
	}
}

// readCount reads a trace file's requests, reporting any error but io.EOF.
// It reads from memory through a small buffer (Open's 1 MiB read-ahead
// made the thousand cuts slow) the way OpenFS does: decompress, then the
// text reader.
func readCount(t *testing.T, data []byte, name string) (int, error) {
	t.Helper()
	var tf File
	r, err := tf.decompress(name, bufio.NewReaderSize(bytes.NewReader(data), 64))
	if err != nil {
		return 0, err
	}
	rd := newReader(name, Text, r)
	var q Request
	for n := 0; ; n++ {
		if err := rd.Next(&q); err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
	}
}

// A file cut anywhere inside an xz stream, the first or a trailing one,
// is refused; only cuts between streams read as the shorter file. A cut
// inside the first stream's header said "trace has no requests".
func TestXZTruncatedAnywhere(t *testing.T) {
	s1 := xzStream(t, keyLines(300), 1<<20)
	s2 := xzStream(t, keyLines(200), 512)
	file := append(append(bytes.Clone(s1), 0, 0, 0, 0), s2...)
	clean := map[int]int{len(s1): 300, len(s1) + 4: 300, len(file): 500}
	for k := len(xzMagic); k <= len(file); k++ {
		n, err := readCount(t, file[:k], "cut.txt.xz")
		if want, ok := clean[k]; ok {
			if err != nil || n != want {
				t.Errorf("cut at %d (between streams): %d requests, %v; want %d", k, n, err, want)
			}
			continue
		}
		if err == nil {
			t.Fatalf("cut at %d of %d: read %d requests without an error", k, len(file), n)
		}
		if !errors.Is(err, errXZTruncated) && !strings.Contains(err.Error(), "xz") {
			t.Fatalf("cut at %d: %v does not say xz", k, err)
		}
	}
}

// gzipMember compresses data as one gzip member with a file name in its
// header, as gzip(1) writes it.
func gzipMember(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Name = "trace.txt"
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A trailing gzip member cut anywhere, its header included, is refused:
// one cut inside the file name read as the first member alone, exit 0.
func TestGzipTrailingMemberTruncated(t *testing.T) {
	m1, m2 := gzipMember(t, keyLines(300)), gzipMember(t, keyLines(200))
	if n, err := readCount(t, append(bytes.Clone(m1), m2...), "two.txt.gz"); err != nil || n != 500 {
		t.Fatalf("two members: %d requests, %v", n, err)
	}
	for k := 1; k < len(m2); k++ {
		n, err := readCount(t, append(bytes.Clone(m1), m2[:k]...), "cut.txt.gz")
		if err == nil {
			t.Fatalf("second member cut at %d of %d: %d requests without an error", k, len(m2), n)
		}
	}
	// Garbage after a member is no member either.
	if _, err := readCount(t, append(bytes.Clone(m1), "garbage"...), "junk.txt.gz"); !errors.Is(err, errGzipMember) {
		t.Fatalf("garbage after a member: %v", err)
	}
}

// FuzzXZCut holds the xz reader to "read whole or refused": a file of one
// or two streams cut anywhere reads as exactly the requests of the
// streams it holds whole, or fails; it never yields a shorter trace
// without an error.
func FuzzXZCut(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("d\ne\n"), uint16(0))
	f.Add([]byte("k1\nk2\n"), []byte(""), uint16(40))
	f.Add(keyLines(300), keyLines(100), uint16(700))
	f.Fuzz(func(t *testing.T, first, second []byte, cut uint16) {
		if len(first) > 1<<14 || len(second) > 1<<14 {
			return
		}
		lines := func(b []byte) int {
			rd := newReader("f", Text, bytes.NewReader(b))
			var q Request
			n := 0
			for rd.Next(&q) == nil {
				n++
			}
			return n
		}
		s1 := xzStream(t, first, 1024)
		file := bytes.Clone(s1)
		if len(second) > 0 {
			file = append(file, xzStream(t, second, 512)...)
		}
		k := len(xzMagic) + int(cut)%(len(file)-len(xzMagic)+1)
		n, err := readCount(t, file[:k], "fuzz.txt.xz")
		if err != nil {
			return
		}
		switch k {
		case len(s1):
			if n != lines(first) {
				t.Fatalf("cut after the first stream: %d requests, want %d", n, lines(first))
			}
		case len(file):
			if want := lines(append(bytes.Clone(first), second...)); n != want && !bytes.HasSuffix(first, []byte("\n")) {
				return // the streams' text joins across the boundary
			} else if n != want {
				t.Fatalf("whole file: %d requests, want %d", n, want)
			}
		default:
			t.Fatalf("cut at %d of %d (first stream %d bytes) read %d requests without an error", k, len(file), len(s1), n)
		}
	})
}

// A text trace's byte order mark is no part of its first key.
func TestTextTraceBOM(t *testing.T) {
	a, err := openAll(t, writeTemp(t, "bom.txt", []byte("\ufeffk\nx\n")), Text)
	if err != nil {
		t.Fatal(err)
	}
	b, err := openAll(t, writeTemp(t, "plain.txt", []byte("k\nx\n")), Text)
	if err != nil || len(a) != 2 || a[0].ID != b[0].ID {
		t.Fatalf("with a BOM %+v, without %+v (%v)", a, b, err)
	}
}
