package trace

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/fileio"
	"github.com/cespare/xxhash/v2"
)

func readAll(t *testing.T, r Reader) ([]Request, error) {
	t.Helper()
	var out []Request
	for {
		var q Request
		err := r.Next(&q)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, q)
	}
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func openAll(t *testing.T, path string, f Format) ([]Request, error) {
	t.Helper()
	tf, err := Open(path, f)
	if err != nil {
		return nil, err
	}
	defer tf.Close()
	return readAll(t, tf)
}

func oracleBytes(reqs []Request) []byte {
	b := make([]byte, len(reqs)*OracleRecordSize)
	for i := range reqs {
		PutOracle(b[i*OracleRecordSize:], &reqs[i])
	}
	return b
}

func TestOracleRoundTripAndTruncation(t *testing.T) {
	want := []Request{{1, 7, 100, 2}, {2, 8, 5, NoNext}, {3, 7, 100, NoNext}}
	data := oracleBytes(want)
	got, err := openAll(t, writeTemp(t, "a.oracleGeneral", data), "")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
	// math.MaxInt64 as "no next request" reads as NoNext.
	maxNext := oracleBytes([]Request{{1, 1, 1, 1<<63 - 1}})
	if got, _ := openAll(t, writeTemp(t, "m.bin", maxNext), ""); got[0].Next != NoNext {
		t.Errorf("MaxInt64 next read as %d", got[0].Next)
	}
	for _, cut := range []int{1, 23, 25, 47, 71} {
		_, err := openAll(t, writeTemp(t, "cut.bin", data[:cut]), Oracle)
		var re *RecordError
		if !errors.As(err, &re) || re.Record != int64(cut/OracleRecordSize+1) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("cut at %d: %v, want a truncation error at record %d", cut, err, cut/OracleRecordSize+1)
		}
	}
}

func TestTextFormats(t *testing.T) {
	cases := []struct {
		name, data string
		f          Format
		ids        []uint64
		sizes      []uint32
	}{
		{"t.arc", "0 3 0 1\n\n10 1 0 2\r\n", ARC, []uint64{0, 1, 2, 10}, nil},
		{"t.lirs", "5\n*\n6\n\n5", LIRS, []uint64{5, 6, 5}, nil},
		{"t.txt", "alpha\nbeta\r\nalpha\n", Text, []uint64{xxhash.Sum64String("alpha"), xxhash.Sum64String("beta"), xxhash.Sum64String("alpha")}, nil},
		{"t.csv", "0,keyA,10,90,1,get,0\n1,keyB,5,0,2,set,3600\n", Twitter,
			[]uint64{xxhash.Sum64String("keyA"), xxhash.Sum64String("keyB")}, []uint32{100, 5}},
	}
	for _, c := range cases {
		got, err := openAll(t, writeTemp(t, c.name, []byte(c.data)), "")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var ids []uint64
		var sizes []uint32
		for _, q := range got {
			ids = append(ids, q.ID)
			sizes = append(sizes, q.Size)
		}
		if !reflect.DeepEqual(ids, c.ids) {
			t.Errorf("%s: ids %v, want %v", c.name, ids, c.ids)
		}
		if c.sizes != nil && !reflect.DeepEqual(sizes, c.sizes) {
			t.Errorf("%s: sizes %v, want %v", c.name, sizes, c.sizes)
		}
	}
}

func TestBadRecordsNameTheirNumber(t *testing.T) {
	cases := []struct {
		name, data string
		record     int64
		want       string
	}{
		{"a.arc", "1 2\nx 2\n", 2, "start block"},
		{"b.arc", "1 0\n", 1, "block count"},
		{"c.lirs", "1\n2\n-3\n", 3, "block number"},
		{"d.csv", "0,k,1,1,1,get,0\n0,k,1,1\n", 2, "7 comma-separated"},
		{"e.csv", "0,k,1,1,1,fetch,0\n", 1, "unknown operation"},
		{"f.csv", "0,k,x,1,1,get,0\n", 1, "key size"},
		{"g.txt", "ok\n" + strings.Repeat("x", maxLine+10) + "\n", 2, "longer than"},
	}
	for _, c := range cases {
		_, err := openAll(t, writeTemp(t, c.name, []byte(c.data)), "")
		var re *RecordError
		if !errors.As(err, &re) || re.Record != c.record || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want record %d mentioning %q", c.name, err, c.record, c.want)
		}
	}
}

func TestFormatNames(t *testing.T) {
	if _, err := ParseFormat("parquet"); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("ParseFormat(parquet) = %v", err)
	}
	if f, err := ParseFormat("auto"); err != nil || f != "" {
		t.Errorf("ParseFormat(auto) = %q, %v", f, err)
	}
	// libCacheSim's name of the format, as the README spells it.
	for _, s := range []string{"oracleGeneral", "oraclegeneral", "oracle", "ORACLE"} {
		if f, err := ParseFormat(s); err != nil || f != Oracle {
			t.Errorf("ParseFormat(%s) = %q, %v", s, f, err)
		}
	}
	// A name that tells nothing: the format's error for a file that
	// exists, the missing file's for a mistyped path (and for a bare name
	// the user meant as a path).
	parquet := filepath.Join(t.TempDir(), "trace.parquet")
	if _, err := FormatOf(parquet); !errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrUnknownFormat) {
		t.Errorf("FormatOf(missing trace.parquet) = %v", err)
	}
	if err := os.WriteFile(parquet, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FormatOf(parquet); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("FormatOf(trace.parquet) = %v", err)
	}
	if _, err := FormatOf(t.TempDir()); !errors.Is(err, fileio.ErrInput) {
		t.Errorf("FormatOf(a directory) = %v", err)
	}
	if f, _ := FormatOf("/x/w.csv.zst"); f != Twitter {
		t.Errorf("FormatOf(w.csv.zst) = %q", f)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.bin"), ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(missing) = %v", err)
	}
}

// nextByBruteForce recomputes every Next field the slow way.
func nextByBruteForce(reqs []Request) []int64 {
	out := make([]int64, len(reqs))
	for i := range reqs {
		out[i] = NoNext
		for j := i + 1; j < len(reqs); j++ {
			if reqs[j].ID == reqs[i].ID {
				out[i] = int64(j)
				break
			}
		}
	}
	return out
}

func TestGenerateKindsAndCompression(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range KindNames() {
		c := GenConfig{Kind: kind, Requests: 3000, Keys: 200, Alpha: 0.9, Seed: 3, SizeMin: 10, SizeMax: 1000}
		var first []Request
		for _, name := range []string{kind + ".oracleGeneral", kind + ".oracleGeneral.zst", kind + ".oracleGeneral.gz", kind + ".oracleGeneral.xz"} {
			p := filepath.Join(dir, name)
			if err := Generate(context.Background(), c, p); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, err := openAll(t, p, "")
			if err != nil || len(got) != 3000 {
				t.Fatalf("%s: %d requests, %v", name, len(got), err)
			}
			if first == nil {
				first = got
			} else if !reflect.DeepEqual(got, first) {
				t.Fatalf("%s differs from the uncompressed trace", name)
			}
		}
		want := nextByBruteForce(first)
		for i, q := range first {
			if q.Next != want[i] {
				t.Fatalf("%s: record %d next %d, want %d", kind, i, q.Next, want[i])
			}
			if q.Size < 10 || q.Size > 1000 {
				t.Fatalf("%s: size %d outside 10-1000", kind, q.Size)
			}
		}
		if kind == "loop" && (first[0].ID != 0 || first[200].ID != 0 || first[201].ID != 1) {
			t.Errorf("loop: ids %d %d %d", first[0].ID, first[200].ID, first[201].ID)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	if err := Generate(context.Background(), GenConfig{Kind: "zipf", Requests: 0, Keys: 10, Alpha: 1, SizeMin: 1, SizeMax: 1}, filepath.Join(dir, "x")); err == nil {
		t.Error("zero requests accepted")
	}
}

func TestNormalizeDenseIDsAndNext(t *testing.T) {
	src := []Request{{0, 900, 5, 0}, {1, 7, 3, 0}, {2, 900, 5, 0}, {3, 42, 1, 0}, {4, 7, 3, 0}}
	f, err := Open(writeTemp(t, "n.bin", oracleBytes(src)), "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := Normalize(f, t.TempDir(), "n.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if n.Requests != 5 || n.Distinct != 3 || n.Bytes != 17 || n.DistinctBytes != 9 || n.MaxSize != 5 {
		t.Errorf("summary %+v", n.Summary)
	}
	nf, err := n.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer nf.Close()
	got, err := readAll(t, nf)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	var next []int64
	var sizes []uint32
	for _, q := range got {
		ids = append(ids, q.ID)
		next = append(next, q.Next)
		sizes = append(sizes, q.Size)
	}
	if !reflect.DeepEqual(ids, []uint64{0, 1, 0, 2, 1}) || !reflect.DeepEqual(next, []int64{2, 4, NoNext, NoNext, NoNext}) ||
		!reflect.DeepEqual(sizes, []uint32{5, 3, 5, 1, 3}) {
		t.Errorf("ids %v next %v sizes %v", ids, next, sizes)
	}
	empty, _ := Open(writeTemp(t, "e.txt", []byte("\n\n")), "")
	defer empty.Close()
	if _, err := Normalize(empty, t.TempDir(), "e.txt"); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty trace: %v", err)
	}
}

// TestNormalizedFileHasNoName: while a normalized trace is open and read,
// its directory holds nothing, so a process killed before its Close (by
// SIGKILL, the OOM killer, a panic) leaves no file behind; readers opened
// at once each read every record.
func TestNormalizedFileHasNoName(t *testing.T) {
	var src []Request
	var want []uint64 // the dense IDs, in order of first request
	dense := map[uint64]uint64{}
	for i := range 100_000 { // several read blocks
		id := uint64(i * 7 % 1001)
		src = append(src, Request{Time: uint32(i), ID: id, Size: 3})
		if _, ok := dense[id]; !ok {
			dense[id] = uint64(len(dense))
		}
		want = append(want, dense[id])
	}
	f, err := Open(writeTemp(t, "n.bin", oracleBytes(src)), "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	n, err := Normalize(f, dir, "n.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	left := func(when string) {
		t.Helper()
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			t.Errorf("%s: %s is in the directory", when, e.Name())
		}
	}
	left("after Normalize")
	var readers []*File
	for range 3 {
		r, err := n.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		readers = append(readers, r)
	}
	// Interleaved: each reader keeps its own position in the shared file.
	counts := make([]int, len(readers))
	for done := 0; done < len(readers); {
		done = 0
		for i, r := range readers {
			var q Request
			for range 1000 + i*333 {
				err := r.Next(&q)
				if errors.Is(err, io.EOF) {
					done++
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if q.ID != want[counts[i]] {
					t.Fatalf("reader %d, request %d: id %d, want %d", i, counts[i], q.ID, want[counts[i]])
				}
				counts[i]++
			}
		}
	}
	for i, c := range counts {
		if c != len(src) {
			t.Errorf("reader %d read %d requests, want %d", i, c, len(src))
		}
	}
	// Blocks hands out the same records, whole, in order, across blocks
	// (100,000 records is several), and stops once the context is
	// cancelled.
	i := 0
	err = n.Blocks(func(b []byte) error {
		if len(b)%NormalizedRecordSize != 0 {
			t.Fatalf("a block of %d bytes", len(b))
		}
		for off := 0; off < len(b); off, i = off+NormalizedRecordSize, i+1 {
			id, size, _ := NormalizedFields(b[off:])
			if id != want[i] || size != 3 {
				t.Fatalf("Blocks, request %d: id %d size %d, want %d 3", i, id, size, want[i])
			}
		}
		return nil
	})
	if err != nil || i != len(src) {
		t.Errorf("Blocks: %d requests, %v", i, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	blocks := 0
	err = n.WithContext(ctx).Blocks(func([]byte) error { blocks++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || blocks != 1 {
		t.Errorf("cancelled Blocks: %d blocks, %v", blocks, err)
	}
	left("while read")
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	left("after Close")
}
