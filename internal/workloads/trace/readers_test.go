package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// The encoders below write libCacheSim's layouts from their definitions
// (libcachesim.go), to make fixtures for the readers.

// lcsFile writes an lcs header for format (e.g. "<IQIq") with the given
// 1-based id, size and time fields, then records whose fields are vals.
func lcsFile(format string, id, size, time byte, recs [][]int64) []byte {
	h := make([]byte, lcsHeaderSize)
	binary.LittleEndian.PutUint64(h, lcsMagic)
	copy(h[lcsFormatOff:], format)
	h[lcsIDField], h[lcsSizeField], h[lcsTimeField] = id, size, time
	width := 0
	for _, c := range format[1:] {
		width += lcsFieldSize(byte(c))
	}
	binary.LittleEndian.PutUint32(h[lcsNFieldsOff:], uint32(len(format)-1))
	binary.LittleEndian.PutUint32(h[lcsItemSizeOff:], uint32(width))
	binary.LittleEndian.PutUint64(h[1008:], 1)
	binary.LittleEndian.PutUint64(h[lcsEndMagicOff:], lcsMagic)
	out := h
	for _, r := range recs {
		for i, c := range format[1:] {
			v := r[i]
			switch lcsFieldSize(byte(c)) {
			case 1:
				out = append(out, byte(v))
			case 2:
				out = binary.LittleEndian.AppendUint16(out, uint16(v))
			case 4:
				if c == 'f' {
					out = binary.LittleEndian.AppendUint32(out, math.Float32bits(float32(v)))
				} else {
					out = binary.LittleEndian.AppendUint32(out, uint32(v))
				}
			case 8:
				if c == 'd' {
					out = binary.LittleEndian.AppendUint64(out, math.Float64bits(float64(v)))
				} else {
					out = binary.LittleEndian.AppendUint64(out, uint64(v))
				}
			}
		}
	}
	return out
}

// vscsiFile writes records of version ver: (block, length, time µs).
func vscsiFile(ver int, recs [][3]uint64) []byte {
	var out []byte
	for _, r := range recs {
		if ver == 1 {
			b := make([]byte, vscsi1Size)
			binary.LittleEndian.PutUint32(b[4:], uint32(r[1]))
			binary.LittleEndian.PutUint16(b[14:], 1<<8)
			binary.LittleEndian.PutUint64(b[16:], r[0])
			binary.LittleEndian.PutUint64(b[24:], r[2])
			out = append(out, b...)
		} else {
			b := make([]byte, vscsi2Size)
			binary.LittleEndian.PutUint16(b[2:], 2<<8)
			binary.LittleEndian.PutUint32(b[8:], uint32(r[1]))
			binary.LittleEndian.PutUint64(b[16:], r[0])
			binary.LittleEndian.PutUint64(b[24:], r[2])
			out = append(out, b...)
		}
	}
	return out
}

// twrFile writes records (time, id, key size, value size, op).
func twrFile(recs [][5]uint64) []byte {
	var out []byte
	for _, r := range recs {
		out = binary.LittleEndian.AppendUint32(out, uint32(r[0]))
		out = binary.LittleEndian.AppendUint64(out, r[1])
		out = binary.LittleEndian.AppendUint32(out, uint32(r[2]<<22|r[3]))
		out = binary.LittleEndian.AppendUint32(out, uint32(r[4]<<24|3600))
	}
	return out
}

func readBytes(t *testing.T, f Format, data []byte) ([]Request, error) {
	t.Helper()
	return readAll(t, newReader("test", f, bytes.NewReader(data)))
}

func TestLCS(t *testing.T) {
	data := lcsFile("<IQIqB", 2, 3, 1, [][]int64{{10, 1 << 40, 512, -1, 7}, {11, 5, 0, 0, 7}, {12, 1 << 40, 4096, -1, 0}})
	got, err := readBytes(t, LCS, data)
	if err != nil {
		t.Fatal(err)
	}
	want := []Request{{Time: 10, ID: 1 << 40, Size: 512, Next: NoNext}, {Time: 11, ID: 5, Size: 0, Next: NoNext}, {Time: 12, ID: 1 << 40, Size: 4096, Next: NoNext}}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: %+v, want %+v", i+1, got[i], want[i])
		}
	}
	// Without size and time fields: DefaultSize and the record number.
	got, err = readBytes(t, LCS, lcsFile("<hd", 1, 0, 0, [][]int64{{-3, 2}, {4, 9}}))
	if err != nil || len(got) != 2 || got[0].ID != uint64(math.MaxUint64-2) || got[1].Size != DefaultSize || got[1].Time != 2 {
		t.Errorf("lcs without size or time: %+v, %v", got, err)
	}
	// Truncated records name their number; header faults are header errors.
	if _, err := readBytes(t, LCS, data[:len(data)-1]); recordNo(err) != 3 {
		t.Errorf("torn record: %v, want record 3", err)
	}
	bad := map[string][]byte{
		"short header": data[:100],
		"start magic":  append([]byte{1}, data[1:]...),
		"id field":     lcsFile("<IQ", 3, 0, 0, nil),
		"no id field":  lcsFile("<IQ", 0, 0, 0, nil),
		"unknown type": lcsFile("<IZ", 1, 0, 0, nil),
	}
	endMagic := bytes.Clone(data)
	endMagic[lcsEndMagicOff] ^= 1
	bad["end magic"] = endMagic
	itemSize := bytes.Clone(data)
	itemSize[lcsItemSizeOff]++
	bad["item size"] = itemSize
	for name, b := range bad {
		if _, err := readBytes(t, LCS, b); recordNo(err) != 0 || !strings.Contains(err.Error(), "header") {
			t.Errorf("%s: %v, want a header error", name, err)
		}
	}
	if _, err := readBytes(t, LCS, lcsFile("<qq", 1, 2, 0, [][]int64{{1, 1}, {1, -1}})); recordNo(err) != 2 {
		t.Errorf("negative size: %v, want record 2", err)
	}
	if got, err := readBytes(t, LCS, nil); err != nil || len(got) != 0 {
		t.Errorf("empty lcs file: %v", err)
	}
}

func recordNo(err error) int64 {
	var re *RecordError
	if errors.As(err, &re) {
		return re.Record
	}
	return -1
}

func TestVSCSI(t *testing.T) {
	recs := [][3]uint64{{100, 4096, 3_000_000}, {101, 512, 4_500_000}, {100, 4096, 9_000_000}}
	for _, ver := range []int{1, 2} {
		data := vscsiFile(ver, recs)
		got, err := readBytes(t, VSCSI, data)
		if err != nil {
			t.Fatalf("version %d: %v", ver, err)
		}
		for i, r := range recs {
			want := Request{Time: uint32(r[2] / 1e6), ID: r[0], Size: uint32(r[1]), Next: NoNext}
			if got[i] != want {
				t.Errorf("version %d record %d: %+v, want %+v", ver, i+1, got[i], want)
			}
		}
		if _, err := readBytes(t, VSCSI, data[:len(data)-3]); recordNo(err) != 3 {
			t.Errorf("version %d torn: %v, want record 3", ver, err)
		}
		other := bytes.Clone(data)
		if ver == 1 {
			other[2*vscsi1Size+15] = 7
		} else {
			other[2*vscsi2Size+3] = 7
		}
		if _, err := readBytes(t, VSCSI, other); recordNo(err) != 3 {
			t.Errorf("version %d, record 3 of another version: %v", ver, err)
		}
	}
	if _, err := readBytes(t, VSCSI, bytes.Repeat([]byte{0xff}, 100)); recordNo(err) != 1 {
		t.Errorf("not vscsi: %v, want record 1", err)
	}
	if _, err := readBytes(t, VSCSI, vscsiFile(1, recs[:1])); recordNo(err) != 1 {
		t.Errorf("one record: %v, want record 1 (two tell the version)", err)
	}
}

func TestTWR(t *testing.T) {
	recs := [][5]uint64{{1, 42, 10, 1000, 1}, {2, 43, 1023, 1<<22 - 1, 3}, {3, 42, 10, 1000, 9}}
	data := twrFile(recs)
	got, err := readBytes(t, TWR, data)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		want := Request{Time: uint32(r[0]), ID: r[1], Size: uint32(r[2] + r[3]), Next: NoNext}
		if got[i] != want {
			t.Errorf("record %d: %+v, want %+v", i+1, got[i], want)
		}
	}
	if _, err := readBytes(t, TWR, data[:len(data)-1]); recordNo(err) != 3 {
		t.Errorf("torn: %v", err)
	}
	if _, err := readBytes(t, TWR, twrFile([][5]uint64{{1, 1, 1, 1, 1}, {1, 1, 1, 1, 200}})); recordNo(err) != 2 {
		t.Errorf("unknown op: %v, want record 2", err)
	}
}

func TestFormatOfLibCacheSimNames(t *testing.T) {
	for name, want := range map[string]Format{"a.lcs": LCS, "a.lcs.zst": LCS, "cloudPhysicsIO.vscsi": VSCSI, "b.twr.zst": TWR, "c.tsv": TSV} {
		if got, err := FormatOf(name); err != nil || got != want {
			t.Errorf("FormatOf(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestColumns(t *testing.T) {
	log := "ts,obj,bytes,op\n5,alpha,100,get\n6, beta ,200,set\n\n7,alpha,100,get\n"
	for _, spec := range []string{"csv[key=2,size=3,time=1,header]", "csv[time=ts,key=obj,size=bytes,header]", "CSV[header,size=3,key=2,time=1]"} {
		f, ok := lookupFormat(spec)
		if !ok {
			t.Fatalf("%s not recognised", spec)
		}
		got, err := readBytes(t, f, []byte(log))
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		want := []Request{{5, xxhash.Sum64String("alpha"), 100, NoNext}, {6, xxhash.Sum64String("beta"), 200, NoNext}, {7, xxhash.Sum64String("alpha"), 100, NoNext}}
		if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("%s: %+v, want %+v", spec, got, want)
		}
		if !Sized(f) {
			t.Errorf("%s: not sized", spec)
		}
	}
	// TSV, a numeric id column, no header; time is the line number.
	got, err := readBytes(t, "tsv[id=2]", []byte("x\t17\ny\t18\n"))
	if err != nil || len(got) != 2 || got[0].ID != 17 || got[1].ID != 18 || got[1].Time != 2 || got[0].Size != DefaultSize {
		t.Errorf("tsv[id=2]: %+v, %v", got, err)
	}
	if Sized("tsv[id=2]") {
		t.Error("tsv[id=2] has no size column but is sized")
	}
	// Plain csv: the key is column 1.
	if got, err := readBytes(t, CSV, []byte("k1,9\nk2\n")); err != nil || len(got) != 2 || got[1].ID != xxhash.Sum64String("k2") {
		t.Errorf("csv: %+v, %v", got, err)
	}
	for _, c := range []struct {
		spec, data string
		record     int64
	}{
		{"csv[key=2,size=3]", "a,b,1\na,b\n", 2},
		{"csv[key=2,size=3]", "a,b,1\na,b,-4\n", 2},
		{"csv[id=1]", "12\nx\n", 2},
		{"csv[key=1,time=2]", "a,1\nb,99999999999\n", 2},
		{"csv[key=obj,header]", "ts,other\n1,2\n", 1},
		{"csv[key=2]", "a,\n", 1},
	} {
		if _, err := readBytes(t, Format(c.spec), []byte(c.data)); recordNo(err) != c.record {
			t.Errorf("%s on %q: %v, want record %d", c.spec, c.data, err, c.record)
		}
	}
	for _, bad := range []string{"csv[key=0]", "csv[key=2", "csv[colour=3]", "csv[key=obj]", "csv[key=1,id=2]", "csv[size]", "tsv[key=2000]"} {
		if _, err := ParseFormat(bad); !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("ParseFormat(%s): %v, want ErrUnknownFormat", bad, err)
		}
	}
	// The spec syntax of every trace argument.
	dir := t.TempDir()
	p := filepath.Join(dir, "log.csv")
	os.WriteFile(p, []byte(log), 0o644)
	f, path := ParseSpec("csv[key=2,size=3,time=1,header]:" + p)
	if path != p || !isColumnFormat(f) {
		t.Fatalf("ParseSpec: %q %q", f, path)
	}
	if err := (Source{Path: path, Format: f}).Check(); err != nil {
		t.Error(err)
	}
	if err := (Source{Path: path, Format: "csv[nope=1]"}).Check(); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("Check of a bad column spec: %v", err)
	}
	reqs, err := openAll(t, path, f)
	if err != nil || len(reqs) != 3 {
		t.Errorf("open %s: %d requests, %v", path, len(reqs), err)
	}
}

// FuzzLibCacheSim feeds the lcs, vscsi and twr readers: no panic, and
// every failure is a RecordError.
func FuzzLibCacheSim(f *testing.F) {
	f.Add(lcsFile("<IQIq", 2, 3, 1, [][]int64{{1, 2, 3, 4}, {5, 6, 7, 8}}), uint8(0))
	f.Add(vscsiFile(1, [][3]uint64{{1, 2, 3}, {4, 5, 6}}), uint8(1))
	f.Add(vscsiFile(2, [][3]uint64{{1, 2, 3}, {4, 5, 6}}), uint8(1))
	f.Add(twrFile([][5]uint64{{1, 2, 3, 4, 1}}), uint8(2))
	formats := []Format{LCS, VSCSI, TWR}
	f.Fuzz(func(t *testing.T, data []byte, pick uint8) {
		fuzzRead(t, formats[int(pick)%len(formats)], data)
	})
}

// FuzzColumns feeds the column reader any options and any data.
func FuzzColumns(f *testing.F) {
	f.Add("csv[key=2,size=3,time=1,header]", []byte("t,k,s\n1,a,2\n"))
	f.Add("tsv[id=1,size=name,header]", []byte("id\tname\n1\t2\n"))
	f.Add("csv", []byte("a\nb,c\n"))
	f.Fuzz(func(t *testing.T, spec string, data []byte) {
		fm, ok := columnFormat(spec)
		if !ok {
			return
		}
		if _, err := parseColumns(fm); err != nil {
			return
		}
		fuzzRead(t, fm, data)
	})
}

func fuzzRead(t *testing.T, f Format, data []byte) {
	rd := newReader("fuzz", f, bytes.NewReader(data))
	var q Request
	for {
		err := rd.Next(&q)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			var re *RecordError
			if !errors.As(err, &re) {
				t.Fatalf("%s: error %v is not a RecordError", f, err)
			}
			return
		}
	}
}
