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
		if _, err := s.Inspect(); err != nil && !typed(err) {
			t.Fatalf("untyped Inspect error: %v", err)
		}
		if err := s.Verify(); err != nil && !typed(err) {
			t.Fatalf("untyped Verify error: %v", err)
		}
	})
}
