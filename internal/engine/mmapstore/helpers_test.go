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

// buildTyped builds typed pairs into dir/name and returns the path.
func buildTyped(t testing.TB, dir, name string, seq iter.Seq2[[]byte, Value], opts BuildOptions) string {
	t.Helper()
	p := filepath.Join(dir, name)
	b, err := Create(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range seq {
		if err := b.AddValue(k, v); err != nil {
			b.Abort()
			t.Fatalf("add %q: %v", k, err)
		}
	}
	if _, err := b.Finish(); err != nil {
		t.Fatalf("build: %v", err)
	}
	return p
}

// typedValue is the value goldenValues and the typed tests give key i:
// every type, numeric lists of a few lengths (some shared, for dedup),
// inline and out of line.
func typedValue(i int) Value {
	switch i % 8 {
	case 1:
		return Int64Value(int64(i) * -7)
	case 2:
		return Float64Value(float64(i) + 0.25)
	case 3:
		return BoolValue(i%16 == 3)
	case 4:
		return StringValue(fmt.Sprintf("str_%d é", i))
	case 5:
		return Float64sValue([]float64{float64(i / 16), 1.5, -2, 1e300, 0})
	case 6:
		if i%16 == 6 {
			return Int64sValue([]int64{int64(i), -1, 1 << 62})
		}
		return StringsValue([]string{"a", "", fmt.Sprint(i)})
	case 7:
		return StringValue(strings.Repeat("long string value ", 3) + fmt.Sprint(i))
	}
	return BytesValue(fmt.Appendf(nil, "val_%d", i))
}

// typedPairs yields key_%d → typedValue(i) for i in [0, n).
func typedPairs(n int) iter.Seq2[[]byte, Value] {
	return func(yield func([]byte, Value) bool) {
		for i := range n {
			if !yield(fmt.Appendf(nil, "key_%d", i), typedValue(i)) {
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

// getAs calls the typed getter of t.
func getAs(s *Store, key []byte, t Type) (any, bool, error) {
	switch t {
	case TypeString:
		return s.GetString(key)
	case TypeInt64:
		return s.GetInt64(key)
	case TypeFloat64:
		return s.GetFloat64(key)
	case TypeBool:
		return s.GetBool(key)
	case TypeInt64s:
		return s.GetInt64s(key)
	case TypeFloat64s:
		return s.GetFloat64s(key)
	case TypeStrings:
		return s.GetStrings(key)
	}
	v, ok := s.Get(key)
	return v, ok, nil
}

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
