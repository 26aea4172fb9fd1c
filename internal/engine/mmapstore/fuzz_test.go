package mmapstore

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpen writes arbitrary bytes to a file and runs every read path on
// it: Open must fail with a typed error or return a store on which Get,
// GetBatch, Inspect and Verify neither panic nor hang.
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
	f.Add(good)
	f.Add(dedup)
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

// FuzzBucket runs the bucket parser and the lookup's scan on
// arbitrary bucket bytes: neither may panic or read outside the bucket,
// whatever the lookup finds in a bucket the parser accepts must be an
// entry the parser lists with that key, and GetBatch must find the same.
func FuzzBucket(f *testing.F) {
	var bk [bucketSize]byte
	e := appendInline(bk[bucketData:bucketData], []byte("key_1"), []byte("val_1"))
	h := hashKey([]byte("key_1"), 7)
	bk[0], bk[8] = bucketTag(h), bucketData
	appendOutOfLine(bk[bucketData+len(e):bucketData+len(e)], h, 200)
	bk[1], bk[9], bk[bucketFlags] = bucketTag(h), byte(bucketData+len(e)), 2|bucketOverflow
	f.Add(bk[:], []byte("key_1"))
	f.Add(make([]byte, bucketSize), []byte{})
	// A key of 8 to 16 bytes: GetBatch's fast path.
	var bk2 [bucketSize]byte
	appendInline(bk2[bucketData:bucketData], []byte("key_12345678"), []byte("val_12345678"))
	bk2[0], bk2[8], bk2[bucketFlags] = bucketTag(hashKey([]byte("key_12345678"), 7)), bucketData, 1
	f.Add(bk2[:], []byte("key_12345678"))
	f.Add(bk2[:], []byte("key_12345679"))
	f.Fuzz(func(t *testing.T, data, key []byte) {
		// A store of one bucket over a small records section.
		recs := make([]byte, HeaderSize+64)
		copy(recs[HeaderSize:], appendRecordHeader(nil, len("key_1"), 3, false, 0))
		copy(recs[HeaderSize+2:], "key_1abc")
		var b [bucketSize]byte
		copy(b[:], data)
		s := &Store{recs: recs, index: b[:], buckets: 1, maxProbe: 1, seed: 7, hashID: HashCB1}
		v, _, slot, ok := s.find(key, s.hash(key))
		listed := false
		perr := parseBucket(&b, func(e bucketEntry) bool {
			if e.slot == slot && e.inline && string(e.key) == string(key) && string(e.val) == string(v) {
				listed = true
			}
			return true
		})
		if ok && perr == nil && !listed && string(v) != "abc" {
			t.Fatalf("lookup of %q found %q in slot %d, which the parser does not list", key, v, slot)
		}
		// GetBatch's fast path finds what find finds.
		s.GetBatch([][]byte{key}, func(_ int, bv []byte, bok bool) {
			if bok != ok || len(bv) != len(v) || (len(v) > 0 && &bv[0] != &v[0]) {
				t.Fatalf("GetBatch(%q) = %q, %v; find = %q, %v", key, bv, bok, v, ok)
			}
		})
	})
}
