package mmapstore

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestHolderReload swaps two versions of a file under concurrent readers:
// every read sees one whole version (never a mix, never an unmapped
// slice), and a failed reload keeps the old version serving.
func TestHolderReload(t *testing.T) {
	dir := t.TempDir()
	const n = 500
	version := func(v int) func(func([]byte, []byte) bool) {
		return func(yield func([]byte, []byte) bool) {
			for i := range n {
				if !yield(fmt.Appendf(nil, "key_%d", i), fmt.Appendf(nil, "v%d_%d", v, i)) {
					return
				}
			}
		}
	}
	p := filepath.Join(dir, "live.cache")
	if _, err := Build(p, version(0), BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	h, err := NewHolder(p)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := r; !stop.Load(); i++ {
				sn, err := h.Acquire()
				if err != nil {
					t.Error(err)
					return
				}
				// Two keys from the same snapshot come from the same version.
				a, ok1 := sn.Store().Get(fmt.Appendf(nil, "key_%d", i%n))
				b, ok2 := sn.Store().Get(fmt.Appendf(nil, "key_%d", (i+1)%n))
				if !ok1 || !ok2 || a[1] != b[1] || !bytes.HasSuffix(a, fmt.Appendf(nil, "_%d", i%n)) {
					t.Errorf("inconsistent snapshot: %q %q", a, b)
				}
				sn.Release()
				reads.Add(1)
			}
		}()
	}
	for v := 1; v <= 20; v++ {
		if _, err := Build(p, version(v%10), BuildOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := h.Reload(p); err != nil {
			t.Fatal(err)
		}
	}
	// A failed reload keeps serving the current file.
	if err := h.Reload(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("reload of a missing file succeeded")
	}
	v, ok, err := h.GetAppend(nil, []byte("key_3"))
	if err != nil || !ok || string(v) != "v0_3" {
		t.Fatalf("after failed reload: %q %v %v", v, ok, err)
	}
	stop.Store(true)
	wg.Wait()
	if reads.Load() == 0 {
		t.Fatal("readers did not run")
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Acquire(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Acquire after Close: %v", err)
	}
}

// TestHolderKeepsSnapshotMapped checks that a snapshot acquired before a
// reload and Close stays readable until released.
func TestHolderKeepsSnapshotMapped(t *testing.T) {
	dir := t.TempDir()
	p := build(t, dir, "a", kv(10), BuildOptions{})
	h, err := NewHolder(p)
	if err != nil {
		t.Fatal(err)
	}
	sn, _ := h.Acquire()
	v, _ := sn.Store().Get([]byte("key_1"))
	q := build(t, dir, "b", kv(5), BuildOptions{})
	if err := h.Reload(q); err != nil {
		t.Fatal(err)
	}
	h.Close()
	if string(v) != "val_1" || sn.Store().Len() != 10 {
		t.Fatalf("old snapshot: %q len %d", v, sn.Store().Len())
	}
	sn.Release()
	if _, ok := sn.Store().Get([]byte("key_1")); ok {
		t.Fatal("store still open after its last release")
	}
}
