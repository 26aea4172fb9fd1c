package mmapstore

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// serving builds n pairs into a new directory and serves the file
// through a Holder closed at the end of the test.
func serving(t *testing.T, n int) (dir, path string, h *Holder) {
	t.Helper()
	dir = t.TempDir()
	path = build(t, dir, "served.cache", kv(n), BuildOptions{})
	h, err := NewHolder(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return dir, path, h
}

// A file truncated in place under an open Holder crashed its reader with
// SIGBUS. Check sees the rewrite from fstat and the Holder stops serving
// the file: lookups fail with ErrRewritten, and a Reload of a file put in
// place by rename serves again.
func TestHolderRefusesFileRewrittenInPlace(t *testing.T) {
	dir, p, h := serving(t, 20_000)
	if err := h.Check(); err != nil {
		t.Fatalf("untouched file: %v", err)
	}
	if _, ok, err := h.GetAppend(nil, []byte("key_42")); err != nil || !ok {
		t.Fatalf("lookup before: %v %v", ok, err)
	}
	fi, _ := os.Stat(p)
	if err := os.Truncate(p, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	if err := h.Check(); !errors.Is(err, ErrRewritten) {
		t.Fatalf("Check of a truncated file: %v", err)
	}
	for range 3 {
		if _, _, err := h.GetAppend(nil, []byte("key_19999")); !errors.Is(err, ErrRewritten) {
			t.Fatalf("lookup in a truncated file: %v, want ErrRewritten", err)
		}
	}
	// The rule: a new file by rename.
	tmp := build(t, dir, "new.cache", kv(100), BuildOptions{})
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	if err := h.Reload(p); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := h.GetAppend(nil, []byte("key_42")); err != nil || !ok {
		t.Fatalf("after a Reload: %v %v", ok, err)
	}
	if err := h.Check(); err != nil {
		t.Fatalf("renamed file: %v", err)
	}
}

// CheckEvery finds a rewrite on its own.
func TestHolderCheckEvery(t *testing.T) {
	_, p, h := serving(t, 1000)
	stop := h.CheckEvery(time.Millisecond)
	defer stop()
	// Same size, new bytes: the modification time tells it.
	data := readFile(t, p)
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, _, err := h.GetAppend(nil, []byte("key_1"))
		if errors.Is(err, ErrRewritten) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a file rewritten in place was still served: %v", err)
		}
		time.Sleep(time.Millisecond)
	}
}

// Verify and Inspect refuse a rewritten file, and a file that shrinks
// during their pass makes a read fault: that is an ErrRewritten error,
// not a crash.
func TestVerifyRewrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	p := build(t, dir, "v.cache", kv(50_000), BuildOptions{})
	s := mustOpen(t, p)
	defer s.Close()
	fi, _ := os.Stat(p)
	if err := os.Truncate(p, 4096); err != nil {
		t.Fatal(err)
	}
	if err := s.VerifyContext(context.Background()); !errors.Is(err, ErrRewritten) {
		t.Fatalf("verify of a truncated file: %v", err)
	}
	if _, err := s.InspectContext(context.Background()); !errors.Is(err, ErrRewritten) {
		t.Fatalf("inspect of a truncated file: %v", err)
	}
	// The fault itself, as when the file shrinks after the check: make
	// the check pass by recording the new size, then read the mapping.
	now, _ := os.Stat(p)
	s.size, s.mtime = now.Size(), now.ModTime()
	if now.Size() >= fi.Size() || !s.mapped {
		t.Skip("the file is not mapped here")
	}
	if err := s.VerifyContext(context.Background()); !errors.Is(err, ErrRewritten) {
		t.Fatalf("verify faulting on a shrunken mapping: %v", err)
	}
	if _, err := s.InspectContext(context.Background()); !errors.Is(err, ErrRewritten) {
		t.Fatalf("inspect faulting on a shrunken mapping: %v", err)
	}
}
