package mmapstore

import (
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func init() {
	// Colliding hash functions, accepted only by this test binary.
	testHashes = map[uint16]func([]byte, uint64) uint64{
		// Every key has the same home bucket and the same tag.
		hashTestConst: func([]byte, uint64) uint64 { return 0x1234_0000_0000_0005 },
		// Every key has home bucket 0 but its own tags.
		hashTestHome0: func(k []byte, _ uint64) uint64 { return xxhash.Sum64(k) & 0xffffffff },
		// Keys with the same first (last) 8 bytes share bucket and tags.
		hashTestHead8: func(k []byte, _ uint64) uint64 { return xxhash.Sum64(k[:min(8, len(k))]) },
		hashTestTail8: func(k []byte, _ uint64) uint64 { return xxhash.Sum64(k[max(0, len(k)-8):]) },
	}
}

// More test-only hash ids (see format.go for the others).
const (
	hashTestHead8 uint16 = 0xfff3
	hashTestTail8 uint16 = 0xfff4
)

// kv returns n pairs key_%d → val_%d.
func kv(n int) iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		for i := range n {
			if !yield(fmt.Appendf(nil, "key_%d", i), fmt.Appendf(nil, "val_%d", i)) {
				return
			}
		}
	}
}

// build builds pairs into dir/name and returns the path.
func build(t testing.TB, dir, name string, seq iter.Seq2[[]byte, []byte], opts BuildOptions) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if _, err := Build(p, seq, opts); err != nil {
		t.Fatalf("build: %v", err)
	}
	return p
}

func mustOpen(t testing.TB, p string) *Store {
	t.Helper()
	s, err := Open(p)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// noTemps fails if a build left a temporary file in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
