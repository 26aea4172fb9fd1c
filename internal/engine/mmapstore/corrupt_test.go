package mmapstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// golden is a small file every corruption case starts from, with where
// each key's record and value lie in it.
type golden struct {
	data       []byte
	keys       [][]byte
	valOff     []uint64 // offset of the value returned for keys[i]
	valLen     []uint64
	recLo      []uint64 // the key's record spans [recLo, recHi) ...
	recHi      []uint64
	refLo      []uint64 // ... and, for a dedup reference, its value [refLo, refHi)
	refHi      []uint64
	vals       [][]byte // the value of keys[i], copied ...
	types      []Type   // ... and its type
	recordsEnd uint64
	counts     sweepCounts
}

// sweepCounts tallies what the sweep saw, for the logs (go test -v -run
// Corrupt prints them per test).
type sweepCounts struct {
	files, opened        int
	verifyFailed         int // opened, and Verify reported an error
	sampleFailed         int // opened, and CheckSample (plain inspect) reported an error
	checkedGetFailed     int // opened, and GetChecked (inspect --get) reported an error for some key
	checkedMissing       int // keys GetChecked called absent without an error
	wrongValues          int // values or types LookupChecked returned that differ from the golden ones: must stay 0
	undetectedButCorrupt int // opened, Verify failed, and neither CheckSample nor any GetChecked noticed
}

func (c *sweepCounts) log(t *testing.T) {
	t.Logf("sweep: %d files, %d opened (%d rejected at open); of those opened: verify failed %d, plain-inspect sample failed %d, checked get failed %d, "+
		"keys missing without error %d, corrupt files only verify caught %d; wrong values returned as good: %d",
		c.files, c.opened, c.files-c.opened, c.verifyFailed, c.sampleFailed, c.checkedGetFailed, c.checkedMissing, c.undetectedButCorrupt, c.wrongValues)
}

// forGoldens runs f on a golden file.
func forGoldens(t *testing.T, f func(t *testing.T, g *golden)) {
	f(t, newGolden(t))
}

func newGolden(t *testing.T) *golden {
	t.Helper()
	// Every value type, inline and out of line, and dedup references
	// to bytes and to aligned numeric lists.
	seq := func(yield func([]byte, Value) bool) {
		for i := range 40 {
			v := typedValue(i)
			if i%5 == 0 {
				// Referenced by later records; the record is out of
				// line.
				v = BytesValue([]byte("shared value for dedup, too long for a bucket"))
			}
			if !yield(fmt.Appendf(nil, "key_%d", i), v) {
				return
			}
		}
	}
	p := buildTyped(t, t.TempDir(), "golden.cache", seq, BuildOptions{Dedup: true, Seed: 42})
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	g := &golden{data: data}
	t.Cleanup(func() { g.counts.log(t) })
	s := memStore(t, data)
	if s == nil {
		t.Fatal("golden file does not open")
	}
	g.recordsEnd = uint64(len(s.recs))
	g.locate(t, s)
	if len(g.keys) != 40 || s.Verify() != nil {
		t.Fatalf("golden: %d keys, verify %v", len(g.keys), s.Verify())
	}
	return g
}

// locate fills the golden key locations: an inline key's own bytes are
// its entry; an out-of-line key's its record and the value that record
// references.
func (g *golden) locate(t *testing.T, s *Store) {
	for i := range 40 {
		key := fmt.Appendf(nil, "key_%d", i)
		v, b, slot, ok := s.find(key, s.hash(key))
		if !ok {
			t.Fatalf("golden: %s not found", key)
		}
		var e bucketEntry
		parseBucket(s.bucket(b), func(x bucketEntry) bool {
			e = x
			return x.slot != slot
		})
		valOff := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(v.b))) - uintptr(unsafe.Pointer(unsafe.SliceData(s.data))))
		lo, hi, refLo, refHi := s.hdr.IndexOffset+b*bucketSize+uint64(e.pos), s.hdr.IndexOffset+b*bucketSize+uint64(e.end), uint64(0), uint64(0)
		if !e.inline {
			r, _ := decodeRecord(s.recs, e.off, true)
			lo, hi = e.off, r.end
			if r.ref {
				refLo, refHi = r.valOff, r.valOff+r.valLen
			}
		}
		g.keys = append(g.keys, key)
		g.vals = append(g.vals, append([]byte{}, v.b...))
		g.types = append(g.types, v.typ)
		g.valOff, g.valLen = append(g.valOff, valOff), append(g.valLen, uint64(len(v.b)))
		g.recLo, g.recHi = append(g.recLo, lo), append(g.recHi, hi)
		g.refLo, g.refHi = append(g.refLo, refLo), append(g.refHi, refHi)
	}
}

// memStore opens data the way Open does, minus the file and the mapping.
func memStore(t *testing.T, data []byte) *Store {
	h, err := parseHeader(data[:min(len(data), HeaderSize)], int64(len(data)))
	if err != nil {
		if !typed(err) {
			t.Fatalf("untyped open error: %v", err)
		}
		return nil
	}
	s := newStore("mem", h, data, false)
	s.initBlocks(data[:HeaderSize])
	return s
}

func typed(err error) bool {
	for _, e := range []error{ErrNotCachebench, ErrVersion, ErrCorrupt, ErrChecksum} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func fixHeaderChecksum(b []byte) {
	binary.LittleEndian.PutUint64(b[120:], xxhash.Sum64(b[:120]))
}

// exercise runs every read path over data, mutated from the golden file at
// the byte positions in changed, and checks that a hit is the golden
// value unless a changed byte lies in that key's own record or value. It
// returns whether the data opened and Verify's error.
func (g *golden) exercise(t *testing.T, data []byte, changed []uint64) (bool, error) {
	t.Helper()
	g.counts.files++
	s := memStore(t, data)
	if s == nil {
		return false, nil
	}
	g.counts.opened++
	// Checked lookups (inspect --get) must never return a value other
	// than the golden one, whatever was changed.
	getFailed := false
	for i, k := range g.keys {
		v, ok, err := s.LookupChecked(k)
		switch {
		case err != nil:
			if !typed(err) {
				t.Fatalf("untyped LookupChecked error: %v", err)
			}
			getFailed = true
		case !ok:
			g.counts.checkedMissing++
		case string(v.b) != string(g.vals[i]) || v.typ != g.types[i]:
			g.counts.wrongValues++
			t.Errorf("LookupChecked(%q) = %v %q, want %v %q (changed %v)", k, v.typ, v.b, g.types[i], g.vals[i], changed)
		}
		if b, ok2, err2 := s.GetChecked(k); ok2 != ok || (err == nil) != (err2 == nil) || string(b) != string(v.b) {
			t.Fatalf("GetChecked(%q) = %q, %v, %v; LookupChecked = %q, %v, %v", k, b, ok2, err2, v.b, ok, err)
		}
	}
	if getFailed {
		g.counts.checkedGetFailed++
	}
	sampleErr := s.CheckSample(16)
	if sampleErr != nil {
		if !typed(sampleErr) {
			t.Fatalf("untyped CheckSample error: %v", sampleErr)
		}
		g.counts.sampleFailed++
	}
	defer func() {
		if vErr := s.Verify(); vErr != nil {
			g.counts.verifyFailed++
			if sampleErr == nil && !getFailed {
				g.counts.undetectedButCorrupt++
			}
		}
	}()
	base := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	touched := func(i int) bool {
		for _, c := range changed {
			if (c >= g.recLo[i] && c < g.recHi[i]) || (c >= g.refLo[i] && c < g.refHi[i]) {
				return true
			}
		}
		return false
	}
	check := func(i int, v []byte, ok bool) {
		if !ok || touched(i) {
			return
		}
		off := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(v))) - base)
		if len(v) == 0 {
			off = g.valOff[i]
		}
		if off != g.valOff[i] || uint64(len(v)) != g.valLen[i] {
			t.Fatalf("Get(%q) returned bytes [%d,+%d), want [%d,+%d) (changed %v)", g.keys[i], off, len(v), g.valOff[i], g.valLen[i], changed)
		}
	}
	gets := make([][]byte, len(g.keys))
	found := make([]bool, len(g.keys))
	for i, k := range g.keys {
		v, ok := s.Get(k)
		check(i, v, ok)
		// The unchecked typed reads: an untouched key keeps its type, and
		// whatever a key's (possibly corrupt) type byte says, every
		// getter of another type fails with ErrType: no value is read
		// as a type it was not stored as.
		tv, tok := s.Lookup(k)
		if tok != ok {
			t.Fatalf("Lookup and Get disagree on %q", k)
		}
		if ok && !touched(i) && tv.typ != g.types[i] {
			t.Fatalf("Lookup(%q) is a %v, want %v (changed %v)", k, tv.typ, g.types[i], changed)
		}
		for _, ty := range Types()[1:] {
			_, gok, err := getAs(s, k, ty)
			switch {
			case gok != ok:
				t.Fatalf("Get%v(%q) found %v, Get found %v", ty, k, gok, ok)
			case !ok:
			case ty != tv.typ:
				if !errors.Is(err, ErrType) {
					t.Fatalf("Get%v(%q) of a %v value: err %v, want ErrType", ty, k, tv.typ, err)
				}
			case err != nil && (!errors.Is(err, ErrCorrupt) || !touched(i)):
				t.Fatalf("Get%v(%q): %v (changed %v)", ty, k, err, changed)
			}
		}
		gets[i], found[i] = v, ok
		if _, ok2 := s.GetAppend(nil, k); ok2 != ok {
			t.Fatalf("GetAppend and Get disagree on %q", k)
		}
	}
	// GetBatch's fast path must find exactly what Get finds, corrupt
	// bytes included: the same bytes of the mapping, or a miss.
	s.GetBatch(g.keys, func(i int, v []byte, ok bool) {
		check(i, v, ok)
		if ok != found[i] || len(v) != len(gets[i]) || (len(v) > 0 && &v[0] != &gets[i][0]) {
			t.Fatalf("GetBatch(%q) = %q, %v; Get = %q, %v (changed %v)", g.keys[i], v, ok, gets[i], found[i], changed)
		}
	})
	s.Get([]byte("absent key"))
	if _, err := s.Inspect(); err != nil && !typed(err) {
		t.Fatalf("untyped Inspect error: %v", err)
	}
	err := s.Verify()
	if err != nil && !typed(err) {
		t.Fatalf("untyped Verify error: %v", err)
	}
	return true, err
}

func TestCorruptTruncated(t *testing.T) {
	forGoldens(t, func(t *testing.T, g *golden) {
		if len(g.data) > 4096 {
			t.Fatalf("golden file is %d bytes; the sweep covers the first 4 KiB", len(g.data))
		}
		dir := t.TempDir()
		for n := range len(g.data) {
			if ok, _ := g.exercise(t, g.data[:n:n], nil); ok {
				t.Fatalf("file cut to %d bytes opened", n)
			}
			// Through a real file too, for the first lengths and a sample.
			if n <= HeaderSize+8 || n%61 == 0 {
				p := filepath.Join(dir, "cut")
				if err := os.WriteFile(p, g.data[:n], 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := Open(p); !typed(err) {
					t.Fatalf("Open of a file cut to %d bytes: %v", n, err)
				}
			}
		}
		// Extended: stored size ≠ real size.
		if ok, _ := g.exercise(t, append(append([]byte{}, g.data...), 0), nil); ok {
			t.Fatal("file with one extra byte opened")
		}
	})
}

func TestCorruptHeaderBitFlips(t *testing.T) {
	forGoldens(t, func(t *testing.T, g *golden) {
		for bit := range HeaderSize * 8 {
			b := append([]byte{}, g.data...)
			b[bit/8] ^= 1 << (bit % 8)
			if ok, _ := g.exercise(t, b, []uint64{uint64(bit / 8)}); ok {
				t.Fatalf("header with bit %d flipped opened", bit)
			}
		}
	})
}

// TestCorruptHeaderFields sets each header field to awkward values with a
// valid header checksum: each field valid alone but inconsistent with the
// rest, counts that wrap when multiplied, offsets past the end.
func TestCorruptHeaderFields(t *testing.T) {
	forGoldens(t, func(t *testing.T, g *golden) {
		size := uint64(len(g.data))
		vals := []uint64{0, 1, 2, 7, 8, 63, 64, 127, 128, 129, size - 1, size, size + 1, size / 2,
			math.MaxUint32, math.MaxUint32 + 1, 1 << 47, 1 << 48, math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64,
			math.MaxUint64/8 + 1, math.MaxUint64/2 + 1}
		opened := 0
		for off := 8; off < 120; off += 8 {
			orig := binary.LittleEndian.Uint64(g.data[off:])
			for _, v := range append(vals, orig+1, orig-1, orig*2, orig/2, orig+64, orig-64) {
				if v == orig {
					continue
				}
				b := append([]byte{}, g.data...)
				binary.LittleEndian.PutUint64(b[off:], v)
				fixHeaderChecksum(b)
				// Counts and the seed cannot be checked against the file
				// size alone; Verify must then catch them.
				if ok, err := g.exercise(t, b, []uint64{uint64(off)}); ok {
					opened++
					if err == nil {
						t.Errorf("header field at %d set to %d: Verify found nothing", off, v)
					}
				}
			}
		}
		t.Logf("%d variants opened, each failed Verify", opened)
	})
}

// Every bit of the body is flipped in turn; with -short, every 31st
// (a stride prime to 8, so every bit position of a byte is still met),
// and .ci/run's long step flips them all.
func TestCorruptBodyBitFlips(t *testing.T) {
	stride := 1
	if testing.Short() {
		stride = 31
	}
	forGoldens(t, func(t *testing.T, g *golden) {
		for bit := HeaderSize * 8; bit < len(g.data)*8; bit += stride {
			b := append([]byte{}, g.data...)
			b[bit/8] ^= 1 << (bit % 8)
			ok, err := g.exercise(t, b, []uint64{uint64(bit / 8)})
			if !ok {
				t.Fatalf("body bit %d flipped: Open failed (Open must not read sections)", bit)
			}
			if err == nil {
				t.Fatalf("body bit %d flipped: Verify found nothing", bit)
			}
		}
	})
}

func TestCorruptRandomMutations(t *testing.T) {
	forGoldens(t, func(t *testing.T, g *golden) {
		rng := rand.New(rand.NewPCG(1, 2))
		opened := 0
		for range 600 {
			b := append([]byte{}, g.data...)
			var changed []uint64
			for range 1 + rng.IntN(8) {
				var p int
				switch rng.IntN(3) {
				case 0:
					p = rng.IntN(HeaderSize)
				case 1:
					p = HeaderSize + rng.IntN(int(g.recordsEnd)-HeaderSize)
				default:
					p = rng.IntN(len(b))
				}
				b[p] = byte(rng.Uint32())
				changed = append(changed, uint64(p))
			}
			if rng.IntN(2) == 0 {
				fixHeaderChecksum(b)
			}
			if ok, _ := g.exercise(t, b, changed); ok {
				opened++
			}
		}
		t.Logf("%d of 600 mutated files opened", opened)
	})
}
