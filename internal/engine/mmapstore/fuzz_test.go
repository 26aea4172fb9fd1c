package mmapstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpen writes arbitrary bytes to a file and runs every read path on
// it: Open must fail with a typed error or return a store on which Get,
// the typed lookups, GetBatch, Inspect and Verify neither panic nor
// hang. Its seeds include a file of every value type.
func FuzzOpen(f *testing.F) {
	dir := f.TempDir()
	p := build(f, dir, "seed.cache", kv(20), BuildOptions{Seed: 7})
	good, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	dd := build(f, dir, "dedup.cache", func(yield func([]byte, []byte) bool) {
		for k := range kv(20) {
			if !yield(k, []byte("one shared value")) {
				return
			}
		}
	}, BuildOptions{Seed: 7, Dedup: true})
	dedup, err := os.ReadFile(dd)
	if err != nil {
		f.Fatal(err)
	}
	tp := buildTyped(f, dir, "typed.cache", typedPairs(24), BuildOptions{Seed: 7, Dedup: true})
	typedFile, err := os.ReadFile(tp)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(dedup)
	f.Add(typedFile)
	f.Add(good[:HeaderSize])
	f.Add([]byte{})
	f.Add([]byte("key\tvalue\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(p)
		if err != nil {
			if !typed(err) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		defer s.Close()
		var keys [][]byte
		for k := range kv(25) {
			keys = append(keys, k)
			s.Get(k)
			if v, ok := s.Lookup(k); ok {
				readAll(t, v)
			}
			if v, ok, err := s.LookupChecked(k); err != nil && !typed(err) {
				t.Fatalf("untyped LookupChecked error: %v", err)
			} else if ok {
				readAll(t, v)
			}
		}
		s.GetBatch(keys, func(int, []byte, bool) {})
		for _, k := range keys {
			if _, _, err := s.GetChecked(k); err != nil && !typed(err) {
				t.Fatalf("untyped GetChecked error: %v", err)
			}
		}
		if err := s.CheckSample(8); err != nil && !typed(err) {
			t.Fatalf("untyped CheckSample error: %v", err)
		}
		for range s.All() {
		}
		if _, err := s.Inspect(); err != nil && !typed(err) {
			t.Fatalf("untyped Inspect error: %v", err)
		}
		if err := s.Verify(); err != nil && !typed(err) {
			t.Fatalf("untyped Verify error: %v", err)
		}
	})
}

// fuzzRecords is the records section FuzzBucket's store reads: key_1 →
// "abc" (bytes) at offset 128 and key_2 → [1.5, -2] ([]float64, its
// value 8-aligned) after it.
func fuzzRecords() (recs []byte, off2 uint64) {
	recs = make([]byte, HeaderSize, HeaderSize+64)
	recs = appendRecordHeader(recs, len("key_1"), 3, TypeBytes, false, 0)
	recs = append(recs, "key_1abc"...)
	off2 = uint64(len(recs))
	v := Float64sValue([]float64{1.5, -2})
	recs = appendRecordHeader(recs, len("key_2"), len(v.b), TypeFloat64s, false, 0)
	recs = append(recs, "key_2"...)
	for len(recs)%valueAlign != 0 {
		recs = append(recs, 0)
	}
	return append(recs, v.b...), off2
}

// FuzzBucket runs the bucket parser and the lookup's scan on arbitrary
// bucket bytes, typed inline entries and entries pointing to typed
// records included: neither may panic or read outside the bucket; what
// the lookup finds in a bucket the parser accepts must be an entry the
// parser lists with that key, value and type (or one of the records);
// a value found always has a size its type allows, and reading it as
// any type either gives that type's value or fails (ErrType for another
// type); GetBatch must find the same bytes.
func FuzzBucket(f *testing.F) {
	_, off2 := fuzzRecords()
	var bk [bucketSize]byte
	e := appendInline(bk[bucketData:bucketData], []byte("key_1"), TypeBytes, []byte("val_1"))
	h := hashKey([]byte("key_1"), 7)
	bk[0], bk[8] = bucketTag(h), bucketData
	appendOutOfLine(bk[bucketData+len(e):bucketData+len(e)], h, 200)
	bk[1], bk[9], bk[bucketFlags] = bucketTag(h), byte(bucketData+len(e)), 2|bucketOverflow
	f.Add(bk[:], []byte("key_1"))
	f.Add(make([]byte, bucketSize), []byte{})
	// A key of 8 to 16 bytes: GetBatch's fast path.
	var bk2 [bucketSize]byte
	appendInline(bk2[bucketData:bucketData], []byte("key_12345678"), TypeBytes, []byte("val_12345678"))
	bk2[0], bk2[8], bk2[bucketFlags] = bucketTag(hashKey([]byte("key_12345678"), 7)), bucketData, 1
	f.Add(bk2[:], []byte("key_12345678"))
	f.Add(bk2[:], []byte("key_12345679"))
	// Typed: an inline int64, an inline string of 8 to 16 bytes' key and
	// an entry pointing to the []float64 record.
	var bk3 [bucketSize]byte
	p := bucketData
	for i, kv := range []struct {
		key string
		v   Value
	}{{"key_3", Int64Value(-5)}, {"key_4567890", StringValue("s")}} {
		n := len(appendInline(bk3[p:p], []byte(kv.key), kv.v.typ, kv.v.b))
		bk3[i], bk3[8+i] = bucketTag(hashKey([]byte(kv.key), 7)), byte(p)
		p += n
	}
	h2 := hashKey([]byte("key_2"), 7)
	appendOutOfLine(bk3[p:p], h2, off2)
	bk3[2], bk3[10], bk3[bucketFlags] = bucketTag(h2), byte(p), 3
	for _, k := range []string{"key_2", "key_3", "key_4567890"} {
		f.Add(bk3[:], []byte(k))
	}
	f.Fuzz(func(t *testing.T, data, key []byte) {
		// A store of one bucket over the small records section.
		recs, _ := fuzzRecords()
		var b [bucketSize]byte
		copy(b[:], data)
		s := &Store{recs: recs, index: b[:], buckets: 1, maxProbe: 1, seed: 7, hashID: HashCB1}
		v, _, slot, ok := s.find(key, s.hash(key))
		listed := false
		perr := parseBucket(&b, func(e bucketEntry) bool {
			if e.slot == slot && e.inline && string(e.key) == string(key) && string(e.val) == string(v.b) && e.typ == v.typ {
				listed = true
			}
			return true
		})
		isRecord := (v.typ == TypeBytes && string(v.b) == "abc") || (v.typ == TypeFloat64s && len(v.b) == 16)
		if ok && perr == nil && !listed && !isRecord {
			t.Fatalf("lookup of %q found %v %q in slot %d, which the parser does not list", key, v.typ, v.b, slot)
		}
		if ok {
			if !v.typ.fits(uint64(len(v.b))) {
				t.Fatalf("lookup of %q found a %d-byte %v", key, len(v.b), v.typ)
			}
			readAll(t, v)
		}
		// GetBatch's fast path finds what find finds.
		s.GetBatch([][]byte{key}, func(_ int, bv []byte, bok bool) {
			if bok != ok || len(bv) != len(v.b) || (len(v.b) > 0 && &bv[0] != &v.b[0]) {
				t.Fatalf("GetBatch(%q) = %q, %v; find = %q, %v", key, bv, bok, v.b, ok)
			}
		})
	})
}

// readAll reads v as every type: its own must not fail with ErrType,
// every other must, and nothing may panic.
func readAll(t *testing.T, v Value) {
	t.Helper()
	_ = v.String()
	_, _ = v.MarshalJSON()
	for _, ty := range Types()[1:] {
		var err error
		switch ty {
		case TypeString:
			_, err = v.Text()
		case TypeInt64:
			_, err = v.Int64()
		case TypeFloat64:
			_, err = v.Float64()
		case TypeBool:
			_, err = v.Bool()
		case TypeInt64s:
			_, err = v.Int64s()
		case TypeFloat64s:
			_, err = v.Float64s()
		case TypeStrings:
			_, err = v.Strings()
		}
		if (ty == v.typ) == errors.Is(err, ErrType) {
			t.Fatalf("reading a %v as %v: %v", v.typ, ty, err)
		}
	}
}

// FuzzValue decodes arbitrary payloads as every type: no panic, no
// allocation sized by a count in the payload, and checkValue accepts
// exactly what the getters read without ErrCorrupt.
func FuzzValue(f *testing.F) {
	for i := range 16 {
		v := typedValue(i)
		f.Add(uint8(v.typ), v.b)
	}
	f.Add(uint8(TypeStrings), []byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add(uint8(TypeBool), []byte{2})
	f.Fuzz(func(t *testing.T, ty uint8, b []byte) {
		v := Value{Type(ty % uint8(numTypes+1)), b}
		readAll(t, v)
		if v.typ >= numTypes {
			if checkValue(v.typ, b) == nil {
				t.Fatal("checkValue accepted an unknown type")
			}
			return
		}
		good := checkValue(v.typ, b) == nil
		if _, err := v.MarshalJSON(); good && err != nil {
			t.Fatalf("valid %v %q does not marshal: %v", v.typ, b, err)
		}
		if good && v.typ == TypeStrings {
			if xs, err := v.Strings(); err != nil || len(xs) > len(b) {
				t.Fatalf("valid []string %q: %q, %v", b, xs, err)
			}
		}
	})
}
