package workloads

import (
	"errors"
	"fmt"
	"testing"
)

// codecSizes covers the shortest value, the sizes around the body's
// diagnostic fields, odd sizes and a large one.
var codecSizes = []int{MinValueSize, 9, 11, 12, 15, 16, 17, 23, 64, 100, 1023, 1024, 65537}

func TestKeyFormat(t *testing.T) {
	for _, i := range []uint64{0, 1, 9, 10, 99, 1234, 999_999, 1<<32 - 1} {
		k := AppendKey(nil, i)
		if want := fmt.Sprintf("key_%d", i); string(k) != want {
			t.Fatalf("AppendKey(%d) = %q, want %q", i, k, want)
		}
		if KeySize(i) != len(k) {
			t.Fatalf("KeySize(%d) = %d, want %d", i, KeySize(i), len(k))
		}
		got, ok := ParseKey(k)
		if !ok || got != i {
			t.Fatalf("ParseKey(%q) = %d, %v", k, got, ok)
		}
	}
	for _, bad := range []string{"", "key_", "key-1", "kex_1", "key_01", "key_1a", "key_-1", "key_4294967296", "key_12345678901"} {
		if i, ok := ParseKey([]byte(bad)); ok {
			t.Errorf("ParseKey(%q) accepted as %d", bad, i)
		}
	}
}

func TestValueRoundTrip(t *testing.T) {
	c := NewCodec(7)
	for _, n := range codecSizes {
		for _, i := range []uint64{0, 1, 42, 1<<30 - 1} {
			for _, v := range []uint32{0, 1, 1 << 31} {
				val := c.AppendValue(nil, i, v, n)
				if len(val) != n {
					t.Fatalf("len = %d, want %d", len(val), n)
				}
				if !c.CheckIndex(val, i, v) || !c.CheckFull(val, i, v) {
					t.Fatalf("n=%d i=%d v=%d: value does not verify", n, i, v)
				}
				if n >= diagValueSize {
					ci, cv, ok := c.Claims(val)
					if ci != i || cv != v || !ok {
						t.Fatalf("Claims = %d, %d, %v; want %d, %d, true", ci, cv, ok, i, v)
					}
				}
			}
		}
	}
}

// TestCheckCatches is the codec's contract: each kind of wrong value a
// cache could return is rejected by Check, which reads only the ends.
func TestCheckCatches(t *testing.T) {
	c := NewCodec(1)
	for _, n := range codecSizes {
		// Many keys where a chance tag collision could hide, few where each
		// value is large.
		keys := uint64(2000)
		if n > 64 {
			keys = 50
		}
		for i := uint64(0); i < keys; i++ {
			want := c.AppendValue(nil, i, 3, n)
			// Another key's value of the same length and version.
			other := c.AppendValue(nil, (i+1)%keys, 3, n)
			if c.CheckIndex(other, i, 3) {
				t.Fatalf("n=%d: key %d's value accepted for key %d", n, (i+1)%keys, i)
			}
			// A stale version: what the key held before the last overwrite.
			stale := c.AppendValue(nil, i, 2, n)
			if c.CheckIndex(stale, i, 3) {
				t.Fatalf("n=%d key %d: version 2 accepted as version 3", n, i)
			}
			// Torn values: the head of one write, the tail of another.
			for _, pair := range [][2][]byte{{want, stale}, {stale, want}, {want, other}} {
				torn := append([]byte(nil), pair[0][:n/2]...)
				torn = append(torn, pair[1][n/2:]...)
				if c.CheckIndex(torn, i, 3) {
					t.Fatalf("n=%d key %d: torn value accepted", n, i)
				}
			}
			// Truncation and extension, by one byte and by more.
			for _, cut := range []int{1, 4, n - MinValueSize} {
				if cut > 0 && c.CheckIndex(want[:n-cut], i, 3) {
					t.Fatalf("n=%d key %d: value truncated by %d accepted", n, i, cut)
				}
			}
			for _, ext := range []int{1, 4, 13} {
				long := append(append([]byte(nil), want...), make([]byte, ext)...)
				if c.CheckIndex(long, i, 3) {
					t.Fatalf("n=%d key %d: value extended by %d zero bytes accepted", n, i, ext)
				}
				// Extended with a copy of its own tail, so the last four
				// bytes are still a valid-looking tail tag.
				long = append(append([]byte(nil), want...), want[n-ext%n:]...)
				if c.CheckIndex(long, i, 3) {
					t.Fatalf("n=%d key %d: value extended by its own last %d bytes accepted", n, i, ext)
				}
			}
			// A value of the right length for another seed.
			if NewCodec(2).CheckIndex(want, i, 3) {
				t.Fatalf("n=%d key %d: seed 1's value accepted under seed 2", n, i)
			}
		}
		zero := make([]byte, n)
		for i := uint64(0); i < keys; i++ {
			if c.CheckIndex(zero, i, 0) {
				t.Fatalf("n=%d: all-zero value accepted for key %d", n, i)
			}
		}
	}
	if c.CheckIndex(nil, 0, 0) || c.CheckIndex(make([]byte, MinValueSize-1), 0, 0) {
		t.Fatal("a value shorter than MinValueSize was accepted")
	}
}

// TestCheckFullCatchesBodyDamage: Check reads the ends only; CheckFull
// also notices a flipped byte in the middle.
func TestCheckFullCatchesBodyDamage(t *testing.T) {
	c := NewCodec(1)
	for _, n := range codecSizes[:len(codecSizes)-1] {
		val := c.AppendValue(nil, 5, 0, n)
		d := make([]byte, n)
		for j := 0; j < n; j++ {
			copy(d, val)
			d[j] ^= 0x10
			if c.CheckFull(d, 5, 0) {
				t.Fatalf("n=%d: byte %d flipped, CheckFull accepted", n, j)
			}
			if (j < 4 || j >= n-4) && c.CheckIndex(d, 5, 0) {
				t.Fatalf("n=%d: tag byte %d flipped, Check accepted", n, j)
			}
		}
	}
}

func TestShortValueSize(t *testing.T) {
	for i, want := range map[uint64]int{0: 8, 999: 8, 1000: 8, 10000: 9, 999_999: 10, 1_000_000: 11} {
		if got := ShortValueSize(i); got != want {
			t.Errorf("ShortValueSize(%d) = %d, want %d", i, got, want)
		}
	}
}

func TestCodecDoesNotAllocate(t *testing.T) {
	c := NewCodec(1)
	buf := make([]byte, 100)
	if n := testing.AllocsPerRun(100, func() {
		c.PutValue(buf, 9, 1)
		if !c.CheckIndex(buf, 9, 1) {
			t.Fatal("check failed")
		}
	}); n != 0 {
		t.Fatalf("PutValue+Check allocate %v times", n)
	}
}

func TestPutValueRejectsShortBuffer(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("PutValue accepted a 7-byte buffer")
		}
	}()
	NewCodec(1).PutValue(make([]byte, MinValueSize-1), 1, 0)
}

func BenchmarkCheck(b *testing.B) {
	c := NewCodec(1)
	val := c.AppendValue(nil, 123456, 0, 11)
	key := AppendKey(nil, 123456)
	ok := true
	for i := 0; i < b.N; i++ {
		ok = ok && c.Check(val, key, 0)
	}
	if !ok {
		b.Fatal("check failed")
	}
}

// TestParseKeyAgainstStrconv compares ParseKey with strconv on every
// length and on keys damaged at every digit.
func TestParseKeyAgainstStrconv(t *testing.T) {
	for i := uint64(0); i < 3000; i++ {
		for _, x := range []uint64{i, i * 37, i * 33331, i * 1_234_567, i * 2_000_003, 1<<32 - 1 - i} {
			if x >= 1<<32 {
				continue
			}
			k := AppendKey(nil, x)
			if got, ok := ParseKey(k); !ok || got != x {
				t.Fatalf("ParseKey(%q) = %d, %v", k, got, ok)
			}
			for j := len(KeyPrefix); j < len(k); j++ {
				for _, c := range []byte{'/', ':', 'a', ' ', 0, 0xB0} {
					bad := append([]byte(nil), k...)
					bad[j] = c
					if got, ok := ParseKey(bad); ok {
						t.Fatalf("ParseKey(%q) = %d, accepted", bad, got)
					}
				}
			}
		}
	}
}

// TestProbeGet: the probe writes exactly what AppendValue writes for a
// workload key's index, for every key length; any other key of up to 15
// bytes gets a value Check accepts for it; a longer key is an error.
func TestProbeGet(t *testing.T) {
	p := NewProbe(9)
	c := NewCodec(9)
	for _, x := range []uint64{0, 5, 99, 999, 1000, 1234, 99_999, 123_456, 9_999_999, 10_000_000, 99_999_999, 100_000_000, 1<<32 - 1} {
		key := AppendKey(nil, x)
		want := c.AppendValue([]byte("pre"), x, 0, ShortValueSize(x))
		// A buffer without room (getSlow) and one with room (the fast
		// path the runner's loops take).
		for _, dst := range [][]byte{[]byte("pre"), append(make([]byte, 0, 64), "pre"...)} {
			got, ok, err := p.Get(dst, key)
			if !ok || err != nil || string(got) != string(want) {
				t.Fatalf("key %q, cap %d: got %x, %v, %v; want %x", key, cap(dst), got, ok, err, want)
			}
		}
	}
	for _, other := range []string{"", "k", "key_", "key_0123", "kex_12345", "key_12345678901", "fifteen-bytes!!"} {
		got, ok, err := p.Get(nil, []byte(other))
		if !ok || err != nil || len(got) != max(len(other), MinValueSize) || !c.Check(got, []byte(other), 0) {
			t.Fatalf("key %q: got %x, %v, %v", other, got, ok, err)
		}
	}
	if got, ok, err := p.Get(nil, []byte("sixteen-bytes!!!")); ok || len(got) != 0 || !errors.Is(err, ErrProbeKey) {
		t.Fatalf("16-byte key: %x, %v, %v", got, ok, err)
	}
	buf := make([]byte, 0, 64)
	key := AppendKey(nil, 123456)
	if n := testing.AllocsPerRun(100, func() { buf, _, _ = p.Get(buf[:0], key) }); n != 0 {
		t.Fatalf("Get allocates %v times", n)
	}
}

// TestCheckTag: CheckTag with the tag of the expected key and version
// accepts the value and rejects another key's value, a stale version, and
// a truncated or extended value. (A whole value of that key and version
// written at another length would pass: the tag leaves the length out so
// that the probe need not know it, and a workload writes each key at one
// length per version.)
func TestCheckTag(t *testing.T) {
	c := NewCodec(3)
	for _, n := range codecSizes {
		for i := uint64(0); i < 200; i++ {
			want := c.AppendValue(nil, i, 0, n)
			tag := c.Tag(AppendKey(nil, i), 0)
			if !CheckTag(want, tag) {
				t.Fatalf("n=%d key %d: its own value rejected", n, i)
			}
			bad := [][]byte{
				c.AppendValue(nil, i+1, 0, n),
				c.AppendValue(nil, i, 1, n),
				want[:n-1],
				append(append([]byte(nil), want...), want[n-4:]...),
				append(append([]byte(nil), want...), 0),
			}
			for k, b := range bad {
				if CheckTag(b, tag) {
					t.Fatalf("n=%d key %d: wrong value %d accepted: %x", n, i, k, b)
				}
			}
		}
	}
}

// TestTagSpreadsKeys: over the first 1,000,000 keys (the default scale),
// tags of one length and version collide about as often as random 32-bit
// numbers would (n²/2³³ ≈ 116 pairs), so no byte of the key is lost in
// the mixing; a tag that ignored a digit would collide on most keys.
func TestTagSpreadsKeys(t *testing.T) {
	c := NewCodec(1)
	const n = 1_000_000
	seen := make(map[uint32]struct{}, n)
	var kb [MaxKeySize]byte
	dups := 0
	for i := uint64(0); i < n; i++ {
		tag := c.Tag(AppendKey(kb[:0], i), 0)
		if _, dup := seen[tag]; dup {
			dups++
		}
		seen[tag] = struct{}{}
	}
	if dups > 250 {
		t.Fatalf("%d tag collisions among %d keys, want about 116", dups, n)
	}
	t.Logf("%d tag collisions among %d keys (random: about 116)", dups, n)
}
