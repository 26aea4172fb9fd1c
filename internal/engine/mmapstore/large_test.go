package mmapstore

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// writeSparse writes, by hand, a sparse store whose first value ("big")
// is bigLen bytes of holes, followed by the record far → beyond4GiB,
// both out of line in a one-bucket index; nothing but a few pages and
// the block table is written to disk. It returns the offset of "far".
func writeSparse(tb testing.TB, p string, bigLen uint64) uint64 {
	tb.Helper()
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	seed := uint64(99)
	recA := appendRecordHeader(nil, 3, int(bigLen), TypeBytes, false, 0)
	recA = append(recA, "big"...)
	offB := uint64(HeaderSize) + uint64(len(recA)) + bigLen
	recB := appendRecordHeader(nil, 3, 10, TypeBytes, false, 0)
	recB = append(recB, "farbeyond4GiB"...)
	recEnd := offB + uint64(len(recB))
	idxOff := alignUp(recEnd, bucketSize)
	var bk [bucketSize]byte
	pos := bucketData
	for i, kv := range []struct {
		key string
		off uint64
	}{{"big", HeaderSize}, {"far", offB}} {
		h := hashKey([]byte(kv.key), seed)
		appendOutOfLine(bk[pos:pos], h, kv.off)
		bk[i], bk[8+i] = bucketTag(h), byte(pos)
		pos += outEntrySize
	}
	bk[bucketFlags] = 2
	hdr := Header{Version: Version, HashID: HashCB1, Seed: seed, Entries: 2, Records: 2, Buckets: 1, MaxProbe: 1,
		RecordsOffset: HeaderSize, RecordsLength: recEnd - HeaderSize, IndexOffset: idxOff, IndexLength: bucketSize,
		FileSize: idxOff + bucketSize, BlockShift: DefaultBlockShift}
	writes := []struct {
		b   []byte
		off uint64
	}{{recA, HeaderSize}, {recB, offB}, {bk[:], idxOff}}
	for _, w := range writes {
		if _, err := f.WriteAt(w.b, int64(w.off)); err != nil {
			tb.Skipf("cannot write a sparse file here: %v", err)
		}
	}
	hdr.BlockTableOff = hdr.FileSize
	nr, ni := hdr.blockCounts()
	hdr.FileSize += (nr + ni) * blockSumSize
	var hb0 [HeaderSize]byte
	hdr.encode(hb0[:])
	key := blockKeySeed(hb0[:])
	bs := uint64(1) << DefaultBlockShift
	zero := uint32(xxhash.Sum64(make([]byte, bs)))
	holeLo, holeHi := uint64(HeaderSize)+uint64(len(recA)), offB
	tbl := make([]byte, 0, (nr+ni)*blockSumSize)
	buf := make([]byte, bs)
	for g := range nr + ni {
		start, end := HeaderSize+g*bs, min(HeaderSize+(g+1)*bs, recEnd)
		if g >= nr {
			start, end = idxOff+(g-nr)*bs, min(idxOff+(g-nr+1)*bs, idxOff+bucketSize)
		}
		// Blocks wholly inside the hole hash as zeros without reading.
		sum := zero
		if start < holeLo || end > holeHi || end-start != bs {
			n, _ := f.ReadAt(buf[:end-start], int64(start))
			sum = uint32(xxhash.Sum64(buf[:n]))
		}
		tbl = binary.LittleEndian.AppendUint32(tbl, sum^blockKey(key, g))
	}
	hdr.BlockTableSum = xxhash.Sum64(tbl)
	if _, err := f.WriteAt(tbl, int64(hdr.BlockTableOff)); err != nil {
		tb.Skipf("cannot write a sparse file here: %v", err)
	}
	var hb [HeaderSize]byte
	hdr.encode(hb[:])
	if _, err := f.WriteAt(hb[:], 0); err != nil {
		tb.Fatal(err)
	}
	return offB
}

// TestOffsetsBeyond4GiB reads a file whose second record, and the
// offset in its bucket entry, lie above 2^32.
func TestOffsetsBeyond4GiB(t *testing.T) {
	const bigLen = 9 << 29 // 4.5 GiB
	p := filepath.Join(t.TempDir(), "sparse.cache")
	if offB := writeSparse(t, p, bigLen); offB <= 1<<32 {
		t.Fatalf("test setup: second record at %d is not above 4 GiB", offB)
	}
	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, ok := s.Get([]byte("far")); !ok || string(v) != "beyond4GiB" {
		t.Fatalf("far = %q, %v", v, ok)
	}
	if v, ok := s.Get([]byte("big")); !ok || len(v) != bigLen { // length only: reading it would fault in 4.5 GiB
		t.Fatalf("big: len %d, %v", len(v), ok)
	}
	if err := s.CheckSample(64); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.GetChecked([]byte("far")); err != nil || !ok || string(v) != "beyond4GiB" {
		t.Fatalf("checked far = %q, %v, %v", v, ok, err)
	}
	st, err := s.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	if st.ValueBytes != bigLen+10 || st.ProbeLengths[1] != 2 || st.OutOfLine != 2 {
		t.Fatalf("inspect: value bytes %d, probes %v, out of line %d", st.ValueBytes, st.ProbeLengths.Buckets(), st.OutOfLine)
	}
}

// TestSparseChecked checks the hand-written file the sparse benchmark
// uses, at 1 MiB: it opens, passes the sample, a checked lookup and
// Verify, and a flipped byte in the record of "far" is caught by the
// checked lookup.
func TestSparseChecked(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sparse.cache")
	offB := writeSparse(t, p, 1<<20)
	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckSample(64); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.GetChecked([]byte("far")); err != nil || !ok || string(v) != "beyond4GiB" {
		t.Fatalf("far = %q, %v, %v", v, ok, err)
	}
	if err := s.Verify(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	data, _ := os.ReadFile(p)
	data[offB+8] ^= 1
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(p); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _, err := s.GetChecked([]byte("far")); !errors.Is(err, ErrChecksum) {
		t.Fatalf("flipped value byte: %q, %v", v, err)
	}
}

// TestOffsetLimits covers the arithmetic at the format's limits without
// any file: 48-bit offsets in bucket entries, varint offsets, overflow
// checks.
func TestOffsetLimits(t *testing.T) {
	for _, off := range []uint64{HeaderSize, 1<<32 - 1, 1 << 32, 1<<32 + 5, 1<<40 + 3, MaxFileSize - 1} {
		rec := appendRecordHeader(nil, 1, 7, TypeBytes, true, off)
		kl, n := binary.Uvarint(rec)
		w, m := binary.Uvarint(rec[n:])
		vo, _ := binary.Uvarint(rec[n+m:])
		if kl != 1 || w != 7<<valLenShift|valRefBit || vo != off {
			t.Errorf("record header round trip of offset %d: %d %d %d", off, kl, w, vo)
		}
	}
	// 48-bit offsets in out-of-line entries, home buckets always below
	// the bucket count.
	for _, off := range []uint64{HeaderSize, 1<<32 - 1, 1 << 32, 1<<40 + 3, MaxFileSize - 1} {
		var bk [bucketSize]byte
		h := uint64(0xdead_beef_1234_5678)
		e := appendOutOfLine(bk[bucketData:bucketData], h, off)
		bk[0], bk[8], bk[bucketFlags] = bucketTag(h), bucketData, 1
		var got bucketEntry
		if err := parseBucket(&bk, func(x bucketEntry) bool { got = x; return true }); err != nil || len(e) != outEntrySize || got.off != off || got.outTag != outTag(h) {
			t.Errorf("out-of-line entry round trip of offset %d: %+v, %v", off, got, err)
		}
	}
	for _, n := range []uint64{1, 3, 1 << 20, 1<<42 - 1} {
		if homeBucket(^uint64(0), n) != n-1 || homeBucket(0, n) != 0 {
			t.Errorf("homeBucket outside [0, %d)", n)
		}
	}
	if _, ok := addNoOverflow(1<<63, 1<<63); ok {
		t.Error("addNoOverflow missed a wrap")
	}
	// A header claiming a file beyond the 48-bit limit is refused even if
	// the real size matched.
	h := Header{FileSize: MaxFileSize + 64}
	if err := h.validate(int64(MaxFileSize + 64)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("file beyond the limit: %v", err)
	}
}

// TestWriteSparseFile writes the benchmark's 2 GiB sparse file
// to $MMAPSTORE_SPARSE_OUT, to time `cachebench inspect` on it by hand
// (for example under /usr/bin/time -v); without the variable it skips.
func TestWriteSparseFile(t *testing.T) {
	out := os.Getenv("MMAPSTORE_SPARSE_OUT")
	if out == "" {
		t.Skip("MMAPSTORE_SPARSE_OUT not set")
	}
	writeSparse(t, out, 2<<30)
}
