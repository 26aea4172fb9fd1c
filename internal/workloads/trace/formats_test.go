package trace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The fixtures under testdata/ were written with the formats' own tools
// (xz, gzip and zstd from the command line over hand-made records), in
// the directory layout FormatOf reads formats from.
func TestFixtures(t *testing.T) {
	cases := []struct {
		path  string
		f     Format
		ids   []uint64
		sizes []uint32
	}{
		{"testdata/cache2k/fixture.trace.xz", Cache2k, []uint64{1, 2, 0xffffffff, 1}, nil},
		{"testdata/cloud_physics/fixture.trace", CloudPhysics, []uint64{0x80000000, 7, 7}, nil},
		{"testdata/scarab/fixture.trace.gz", Scarab, []uint64{1<<64 - 1, 5, 5}, nil},
		{"testdata/corda/fixture.trace.zst", Corda, []uint64{3, 4, 3}, nil},
		{"testdata/adapt_size/fixture.trace.xz", AdaptSize, []uint64{10, 11, 10}, []uint32{100, 0, 150}},
		{"testdata/address/fixture.trace", Address, []uint64{0x1fffff50, 0x7fff0, 0x1fffff50}, nil},
		{"testdata/lirs/fixture.trace", LIRS, []uint64{1, 2, 1}, nil},
	}
	for _, c := range cases {
		if f, err := FormatOf(c.path); err != nil || f != c.f {
			t.Errorf("FormatOf(%s) = %q, %v; want %q", c.path, f, err, c.f)
		}
		got, err := openAll(t, c.path, "")
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		var ids []uint64
		var sizes []uint32
		for _, q := range got {
			ids = append(ids, q.ID)
			sizes = append(sizes, q.Size)
			if q.Next != NoNext {
				t.Errorf("%s: next %d from a format without next times", c.path, q.Next)
			}
		}
		if !reflect.DeepEqual(ids, c.ids) {
			t.Errorf("%s: ids %#x, want %#x", c.path, ids, c.ids)
		}
		want := c.sizes
		if want == nil {
			want = make([]uint32, len(c.ids))
			for i := range want {
				want[i] = DefaultSize
			}
		}
		if !reflect.DeepEqual(sizes, want) {
			t.Errorf("%s: sizes %v, want %v", c.path, sizes, want)
		}
		if Sized(c.f) != (c.sizes != nil) {
			t.Errorf("Sized(%s) = %v", c.f, Sized(c.f))
		}
	}
}

// decompressed returns the fixture's bytes as the reader sees them.
func decompressed(t *testing.T, path string) []byte {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var tf File
	r, err := tf.decompress(path, newBufReader(fh))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A binary trace cut anywhere inside a record fails at that record's
// number; cut at a record boundary it is a shorter, valid trace.
func TestBinaryTruncation(t *testing.T) {
	for _, c := range []struct {
		path  string
		f     Format
		width int
	}{
		{"testdata/cache2k/fixture.trace.xz", Cache2k, 4},
		{"testdata/cloud_physics/fixture.trace", CloudPhysics, 4},
		{"testdata/scarab/fixture.trace.gz", Scarab, 8},
		{"testdata/corda/fixture.trace.zst", Corda, 8},
	} {
		data := decompressed(t, c.path)
		for cut := 0; cut < len(data); cut++ {
			got, err := readAll(t, newReader("cut", c.f, bytes.NewReader(data[:cut])))
			if cut%c.width == 0 {
				if err != nil || len(got) != cut/c.width {
					t.Errorf("%s cut at %d: %d records, %v", c.f, cut, len(got), err)
				}
				continue
			}
			var re *RecordError
			if !errors.As(err, &re) || re.Record != int64(cut/c.width+1) || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("%s cut at %d: %v, want a truncation error at record %d", c.f, cut, err, cut/c.width+1)
			}
		}
	}
}

// A compressed trace cut short fails with the number of the record the
// stream broke in, never with a silent short trace.
func TestCompressedTruncation(t *testing.T) {
	for _, path := range []string{"testdata/cache2k/fixture.trace.xz", "testdata/scarab/fixture.trace.gz",
		"testdata/corda/fixture.trace.zst", "testdata/adapt_size/fixture.trace.xz"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Past the magic bytes, so that the decompressor is chosen.
		for _, cut := range []int{8, len(data) / 2, len(data) - 1} {
			p := filepath.Join(t.TempDir(), filepath.Base(filepath.Dir(path)), filepath.Base(path))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, data[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := openAll(t, p, "")
			var re *RecordError
			if err == nil || (!errors.As(err, &re) && !strings.Contains(err.Error(), filepath.Base(path))) {
				t.Errorf("%s cut at %d of %d: %v, want an error naming the record or the file", path, cut, len(data), err)
			}
		}
	}
}

// Text traces cut inside their last line: where the cut leaves a
// malformed line, its number is reported.
func TestTextTruncationAndMalformed(t *testing.T) {
	cases := []struct {
		f      Format
		data   string
		record int64
		want   string
	}{
		{AdaptSize, "1 10 100\n2 11", 2, "want 'time id size'"},
		{AdaptSize, "1 10 100\n2 11 x\n", 2, "size"},
		{AdaptSize, "1 10 4294967296\n", 1, "size"},
		{AdaptSize, "1 -3 5\n", 1, "object id"},
		{Address, "l 0x10 1\nl\n", 2, "want 'op address"},
		{Address, "l 0x10 1\ns 0xzz 1\n", 2, "hexadecimal"},
		{Address, "l 0x10 1\ns 0x1234567890abcdef0 1\n", 2, "hexadecimal"},
		{LIRS, "1\n*\n2x\n", 3, "block number"},
	}
	for _, c := range cases {
		_, err := readAll(t, newReader("t", c.f, strings.NewReader(c.data)))
		var re *RecordError
		if !errors.As(err, &re) || re.Record != c.record || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v; want record %d mentioning %q", c.f, c.data, err, c.record, c.want)
		}
	}
}

func TestFormatSpellingsAndSpecs(t *testing.T) {
	for in, want := range map[string]Format{
		"oracleGeneral": Oracle, "oracle": Oracle, "cloud_physics": CloudPhysics, "cloud-physics": CloudPhysics,
		"CloudPhysics": CloudPhysics, "adapt_size": AdaptSize, "adapt-size": AdaptSize, "cache2k": Cache2k,
		"LIRS": LIRS, "address": Address, "scarab": Scarab, "corda": Corda,
	} {
		if f, err := ParseFormat(in); err != nil || f != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, f, err, want)
		}
	}
	for in, want := range map[string]struct {
		f    Format
		path string
	}{
		"cache2k:web07.trace.xz":         {Cache2k, "web07.trace.xz"},
		"oracleGeneral:/x/y.bin":         {Oracle, "/x/y.bin"},
		"/plain/path.lirs":               {"", "/plain/path.lirs"},
		"notaformat:file":                {"", "notaformat:file"},
		"lirs:":                          {"", "lirs:"},
		"adapt_size:a/b:c.trace":         {AdaptSize, "a/b:c.trace"},
		"cloud-physics:w106.trace.xz":    {CloudPhysics, "w106.trace.xz"},
		"corda:trace_vaultservice.gz":    {Corda, "trace_vaultservice.gz"},
		"scarab:scarab-recs.trace.xz":    {Scarab, "scarab-recs.trace.xz"},
		"address:gcc.trace":              {Address, "gcc.trace"},
		"text:keys.txt":                  {Text, "keys.txt"},
		"twitter:cluster52.sample10.csv": {Twitter, "cluster52.sample10.csv"},
	} {
		if f, p := ParseSpec(in); f != want.f || p != want.path {
			t.Errorf("ParseSpec(%q) = %q, %q; want %q, %q", in, f, p, want.f, want.path)
		}
	}
	if len(Help()) != len(Formats()) {
		t.Errorf("Help has %d lines for %d formats", len(Help()), len(Formats()))
	}
}

// FuzzReaders feeds arbitrary bytes to every reader, compressed or not:
// each must end with io.EOF or a *RecordError, never panic, and never
// yield more requests than the input can describe.
func FuzzReaders(f *testing.F) {
	for _, p := range []string{"testdata/cache2k/fixture.trace.xz", "testdata/adapt_size/fixture.trace.xz",
		"testdata/address/fixture.trace", "testdata/lirs/fixture.trace", "testdata/scarab/fixture.trace.gz"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
	}
	f.Add([]byte("1 2\n3 4 5\n"), uint8(1))
	f.Add([]byte("0,k,1,1,1,get,0\n"), uint8(3))
	names := Formats()
	f.Fuzz(func(t *testing.T, data []byte, pick uint8) {
		// Decompress once (gzip, zstd or xz by their magic bytes, bounded
		// so that a small bomb stays cheap), then hand the bytes to every
		// reader: a decompression error must reach them as a read error.
		var tf File
		r, err := tf.decompress("fuzz", newBufReader(bytes.NewReader(data)))
		if err != nil {
			return
		}
		plain, rerr := io.ReadAll(io.LimitReader(r, 1<<20))
		if tf.zdec != nil {
			tf.zdec.Close()
		}
		for i := range names {
			format := Format(names[(i+int(pick))%len(names)])
			var src io.Reader = bytes.NewReader(plain)
			if rerr != nil {
				src = io.MultiReader(src, errReader{rerr})
			}
			rd := newReader("fuzz", format, src)
			var q Request
			for n := 0; ; n++ {
				err := rd.Next(&q)
				if errors.Is(err, io.EOF) {
					break
				}
				var re *RecordError
				if err != nil {
					if !errors.As(err, &re) {
						t.Fatalf("%s: error %v is not a RecordError", format, err)
					}
					break
				}
				// ARC lines expand to many blocks; stop early.
				if n > 1<<16 {
					break
				}
			}
		}
	})
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// An xz header that asks for a 4 GiB dictionary is refused before the
// decoder allocates it; the fixture's own dictionary passes.
func TestXZDictionaryBound(t *testing.T) {
	data, err := os.ReadFile("testdata/cache2k/fixture.trace.xz")
	if err != nil {
		t.Fatal(err)
	}
	dict, ok := xzBlockDict(data[12:])
	if !ok || dict > maxXZDict || dict < 1<<20 {
		t.Fatalf("fixture dictionary %d, %v", dict, ok)
	}
	// The fixture's block header: size byte at 12, flags at 13, then
	// (no optional sizes) the filter ID 0x21, the property size 1 and
	// the property byte at 16.
	if data[15] != 1 || data[14] != 0x21 {
		t.Fatalf("fixture header % x is not the expected layout", data[12:18])
	}
	bad := bytes.Clone(data)
	bad[16] = 40
	_, err = openAll(t, writeTemp(t, "big.xz", bad), Cache2k)
	if !errors.Is(err, errXZDict) {
		t.Errorf("4 GiB dictionary: %v", err)
	}
}
