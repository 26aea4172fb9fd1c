package mmapstore

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOffsetsBeyond4GiB builds, by hand, a sparse file whose first value
// is 4.5 GiB of holes, so the second record and its slot's offset lie
// above 2^32; nothing but a few pages is written to disk.
func TestOffsetsBeyond4GiB(t *testing.T) {
	const bigLen = 9 << 29 // 4.5 GiB
	p := filepath.Join(t.TempDir(), "sparse.cache")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seed := uint64(99)
	recA := appendRecordHeader(nil, 3, bigLen, false, 0)
	recA = append(recA, "big"...)
	offB := uint64(HeaderSize) + uint64(len(recA)) + bigLen
	recB := appendRecordHeader(nil, 3, 10, false, 0)
	recB = append(recB, "farbeyond4GiB"...)
	recEnd := offB + uint64(len(recB))
	idxOff := alignUp(recEnd, indexAlign)
	const slots = minSlots
	index := make([]byte, slots*slotSize)
	maxProbe := uint64(0)
	for _, kv := range []struct {
		key string
		off uint64
	}{{"big", HeaderSize}, {"far", offB}} {
		h := hashKey([]byte(kv.key), seed)
		for d := uint64(0); ; d++ {
			j := (h + d) & (slots - 1)
			if binary.LittleEndian.Uint64(index[j*slotSize:]) == 0 {
				binary.LittleEndian.PutUint64(index[j*slotSize:], h>>offsetBits<<offsetBits|kv.off)
				maxProbe = max(maxProbe, d+1)
				break
			}
		}
	}
	hdr := Header{Version: Version1, HashID: HashCB1, Seed: seed, Entries: 2, Records: 2, Slots: slots, MaxProbe: maxProbe,
		RecordsOffset: HeaderSize, RecordsLength: recEnd - HeaderSize, IndexOffset: idxOff, IndexLength: slots * slotSize,
		FileSize: idxOff + slots*slotSize}
	var hb [HeaderSize]byte
	hdr.encode(hb[:])
	for _, w := range []struct {
		b   []byte
		off uint64
	}{{hb[:], 0}, {recA, HeaderSize}, {recB, offB}, {index, idxOff}} {
		if _, err := f.WriteAt(w.b, int64(w.off)); err != nil {
			t.Skipf("cannot write a sparse file here: %v", err)
		}
	}
	if offB <= 1<<32 {
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
	st, err := s.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	if st.ValueBytes != bigLen+10 || st.ProbeLengths[1]+st.ProbeLengths[2] != 2 {
		t.Fatalf("inspect: value bytes %d, probes %v", st.ValueBytes, st.ProbeLengths.Buckets())
	}
}

// TestOffsetLimits covers the arithmetic at the format's limits without
// any file: 48-bit offsets in slots, varint offsets, overflow checks.
func TestOffsetLimits(t *testing.T) {
	for _, off := range []uint64{HeaderSize, 1<<32 - 1, 1 << 32, 1<<32 + 5, 1<<40 + 3, MaxFileSize - 1} {
		v := uint64(0xbeef)<<offsetBits | off
		if v&offsetMask != off || v>>offsetBits != 0xbeef {
			t.Errorf("slot round trip of offset %d", off)
		}
		rec := appendRecordHeader(nil, 1, 7, true, off)
		kl, n := binary.Uvarint(rec)
		w, m := binary.Uvarint(rec[n:])
		vo, _ := binary.Uvarint(rec[n+m:])
		if kl != 1 || w != 7<<1|1 || vo != off {
			t.Errorf("record header round trip of offset %d: %d %d %d", off, kl, w, vo)
		}
	}
	if _, ok := addNoOverflow(1<<63, 1<<63); ok {
		t.Error("addNoOverflow missed a wrap")
	}
	if got := slotsFor(1<<40, 0.5); got != 1<<41 {
		t.Errorf("slotsFor(2^40) = %d", got)
	}
	if got := slotsFor(^uint64(0), 0.5); got != 1<<62 {
		t.Errorf("slotsFor(max) = %d", got)
	}
	// A header claiming a file beyond the 48-bit limit is refused even if
	// the real size matched.
	h := Header{FileSize: MaxFileSize + 64}
	if err := h.validate(int64(MaxFileSize + 64)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("file beyond the limit: %v", err)
	}
}
