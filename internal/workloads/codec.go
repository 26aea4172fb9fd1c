package workloads

import (
	"encoding/binary"
	"slices"
	"strconv"
)

// The one key and value format of cachebench (run, gc-pause, the null
// probe and the bare-loop cross-check all use it).
//
// Keys: key index i is the ASCII string "key_" followed by i in decimal
// without leading zeros ("key_0", "key_1234"), the shape of the keys of
// the peers' own published benchmarks.
//
// Values: the value written for key index i, write version v, under seed s,
// with length n (n ≥ MinValueSize) is, byte for byte:
//
//	[0, 4)      T, little-endian uint32, T = Codec(s).Tag(i, v, n)
//	[4, n-4)    the body:
//	              if n ≥ 16: [4, 8) uint32(i) and [8, 12) uint32(v), little
//	              endian (read only to describe a wrong value: which key and
//	              version it claims to be); then filler
//	              otherwise: filler only
//	            filler byte j (j counted from 0 at the start of the value) is
//	            byte(T >> (8·(j mod 4))) XOR byte(j)
//	[n-4, n)    ^T (T with every bit inverted), little-endian uint32
//
// A value read back is verified from its first and last four bytes alone
// (Codec.Check): no expected copy is read, so verifying costs no memory
// traffic beyond the bytes the adapter just returned. Because T covers the
// key index, the version and the length, the check rejects another key's
// value, a stale version, a value whose head and tail come from different
// writes (a torn value), and a truncated or extended value; a value of all
// zeros fails because its tail is not the inverse of its head. Two distinct
// writes share a tag with probability 2^-32.
//
// Tag mixes its inputs with multiplications by odd constants and one
// xor-shift: cheap enough to run once per operation inside a timed loop,
// and a bijection of (i, v, n) before the final truncation to 32 bits.
//
// The default values of insert-lookup and mixed (ValueMin = ValueMax = 0)
// have the length of "val_%d" (4 plus the digits of i), at least
// MinValueSize: the published shape of short values, now self-checking.

// MinValueSize is the shortest value the codec writes: a head and a tail
// tag of four bytes each.
const MinValueSize = 8

// diagValueSize is the shortest value that also carries its key index and
// version in the body, for diagnostics.
const diagValueSize = 16

// Multipliers of Tag: large odd constants with well spread bits (the
// golden ratio, and splitmix64's and murmur3's finalizer constants).
const (
	tagIdx  = 0x9e3779b97f4a7c15
	tagVer  = 0xbf58476d1ce4e5b9
	tagLen  = 0x94d049bb133111eb
	tagMix  = 0xff51afd7ed558ccd
	tagSeed = 0xc4ceb9fe1a85ec53
)

// Codec writes and checks the values of one seed. The zero value is the
// codec of seed 0; NewCodec makes the codec of any seed.
type Codec struct {
	seed uint64
	key  uint64
}

// NewCodec returns the codec of seed.
func NewCodec(seed uint64) Codec {
	return Codec{seed: seed, key: mix64(seed ^ tagSeed)}
}

// Seed returns the seed the codec was made with.
func (c Codec) Seed() uint64 { return c.seed }

// Tag is the 32-bit tag of the value of key index i, version v, length n.
func (c Codec) Tag(i uint64, v uint32, n int) uint32 {
	h := (i+1)*tagIdx ^ (uint64(v)+1)*tagVer ^ uint64(n)*tagLen ^ c.key
	h = (h ^ h>>32) * tagMix
	return uint32(h >> 32)
}

// PutValue writes the value of key index i, version v into dst; the
// value's length is len(dst), at least MinValueSize (shorter buffers
// panic: a caller bug, since every size is validated before generation).
// It does not allocate.
func (c Codec) PutValue(dst []byte, i uint64, v uint32) {
	n := len(dst)
	if n < MinValueSize {
		panicShort(n)
	}
	t := c.Tag(i, v, n)
	binary.LittleEndian.PutUint32(dst, t)
	body := 4
	if n >= diagValueSize {
		binary.LittleEndian.PutUint32(dst[4:], uint32(i))
		binary.LittleEndian.PutUint32(dst[8:], v)
		body = 12
	}
	// The filler four bytes at a time (byte j of the word at j0 is
	// byte(t>>(8·(j&3))) ^ byte(j), j0 a multiple of 4); the last word may
	// run into the tail, which is written after it.
	for j := body; j < n-4; j += 4 {
		b := uint32(byte(j))
		binary.LittleEndian.PutUint32(dst[j:], t^(b*0x01010101+0x03020100))
	}
	binary.LittleEndian.PutUint32(dst[n-4:], ^t)
}

// panicShort is PutValue's failure, out of line so that PutValue stays
// small.
func panicShort(n int) {
	panic("workloads: value buffer of " + strconv.Itoa(n) + " bytes, need at least " + strconv.Itoa(MinValueSize))
}

// AppendValue appends the n-byte value of key index i, version v to dst.
// With room in dst it does not allocate.
func (c Codec) AppendValue(dst []byte, i uint64, v uint32, n int) []byte {
	l := len(dst)
	if cap(dst)-l < n {
		dst = slices.Grow(dst, n)
	}
	dst = dst[:l+n]
	c.PutValue(dst[l:], i, v)
	return dst
}

// Check reports whether val is the value of key index i at version v. It
// reads the first and last four bytes of val and nothing else.
func (c Codec) Check(val []byte, i uint64, v uint32) bool {
	n := len(val)
	if n < MinValueSize {
		return false
	}
	t := c.Tag(i, v, n)
	return binary.LittleEndian.Uint32(val) == t && binary.LittleEndian.Uint32(val[n-4:]) == ^t
}

// CheckFull is Check plus every body byte, for tests and diagnostics (it
// reads the whole value).
func (c Codec) CheckFull(val []byte, i uint64, v uint32) bool {
	if !c.Check(val, i, v) {
		return false
	}
	n := len(val)
	t := binary.LittleEndian.Uint32(val)
	body := 4
	if n >= diagValueSize {
		if binary.LittleEndian.Uint32(val[4:]) != uint32(i) || binary.LittleEndian.Uint32(val[8:]) != v {
			return false
		}
		body = 12
	}
	for j := body; j < n-4; j++ {
		if val[j] != byte(t>>(8*(j&3)))^byte(j) {
			return false
		}
	}
	return true
}

// Claims returns the key index and version a value of at least 16 bytes
// says it belongs to, and whether its tags are consistent with that claim.
// It is for describing a wrong value; correctness is Check's to decide.
func (c Codec) Claims(val []byte) (i uint64, v uint32, ok bool) {
	if len(val) < diagValueSize {
		return 0, 0, false
	}
	i = uint64(binary.LittleEndian.Uint32(val[4:]))
	v = binary.LittleEndian.Uint32(val[8:])
	return i, v, c.Check(val, i, v)
}

// ShortValueSize is the length of the default (unsized) value of key index
// i: that of "val_%d", at least MinValueSize.
func ShortValueSize(i uint64) int { return max(MinValueSize, 4+digits(i)) }

// KeyPrefix starts every key.
const KeyPrefix = "key_"

// keyPrefixWord is KeyPrefix read as a little-endian uint32.
var keyPrefixWord = binary.LittleEndian.Uint32([]byte(KeyPrefix))

// AppendKey appends key index i ("key_%d") to dst.
func AppendKey(dst []byte, i uint64) []byte {
	dst = append(dst, KeyPrefix...)
	return strconv.AppendUint(dst, i, 10)
}

// KeySize is the length of key i.
func KeySize(i uint64) int { return len(KeyPrefix) + digits(i) }

// MaxKeySize is the length of the longest key any uint32 index can have.
const MaxKeySize = len(KeyPrefix) + 10

// ParseKey returns the key index of a well-formed key ("key_" and 1 to 10
// decimal digits, no leading zero unless the index is 0, value < 2^32).
// It is on the null probe's per-operation path, so keys of 4 to 8 digits
// (indexes 1,000 to 99,999,999) are parsed eight bytes at a time.
func ParseKey(key []byte) (uint64, bool) {
	n := len(key)
	if n <= len(KeyPrefix) || n > MaxKeySize || binary.LittleEndian.Uint32(key) != keyPrefixWord {
		return 0, false
	}
	d := key[len(KeyPrefix):]
	if d[0] == '0' && len(d) > 1 {
		return 0, false
	}
	if len(d) >= 4 && len(d) <= 8 {
		return parse8(binary.LittleEndian.Uint64(key[n-8:]), len(d))
	}
	var x uint64
	for _, b := range d {
		b -= '0'
		if b > 9 {
			return 0, false
		}
		x = x*10 + uint64(b)
	}
	return x, x < 1<<32
}

// parse8 parses the last nd (1..8) bytes of the little-endian word w as
// decimal digits, most significant first. The bytes before them are
// replaced by '0's, every byte is checked to be a digit, and the eight
// digits are combined pairwise in three multiply-add steps.
func parse8(w uint64, nd int) (uint64, bool) {
	const zeros = 0x3030303030303030
	low := uint64(1)<<(uint(8*(8-nd))&63) - 1 // the bytes before the digits
	if nd == 8 {
		low = 0
	}
	w = w&^low | zeros&low
	// A digit byte is 0x30..0x39: its high nibble is 3, and adding 6
	// keeps it so.
	if w&0xF0F0F0F0F0F0F0F0 != zeros || (w+0x0606060606060606)&0xF0F0F0F0F0F0F0F0 != zeros {
		return 0, false
	}
	w -= zeros
	w = (w*10 + w>>8) & 0x00FF00FF00FF00FF
	w = (w*100 + w>>16) & 0x0000FFFF0000FFFF
	w = (w*10000 + w>>32) & 0xFFFFFFFF
	return w, true
}

func digits(i uint64) int {
	d := 1
	for ; i >= 10; i /= 10 {
		d++
	}
	return d
}

// mix64 is splitmix64's finalizer.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// AppendValueOfKey appends the version-0 value of the key's index with the
// default short length (ShortValueSize: the key's own length, at least
// MinValueSize) and reports whether key is a well-formed key. It is the
// null probe's whole Get: for keys of 4 to 8 digits (indexes 1,000 to
// 99,999,999) parsing, tagging and writing happen in this one function,
// with no calls, since the probe's cost is part of the harness floor.
func (c Codec) AppendValueOfKey(dst, key []byte) ([]byte, bool) {
	n := len(key)
	if n < 8 || n > len(KeyPrefix)+8 || binary.LittleEndian.Uint32(key) != keyPrefixWord || key[len(KeyPrefix)] == '0' {
		i, ok := ParseKey(key)
		if !ok {
			return dst, false
		}
		return c.AppendValue(dst, i, 0, ShortValueSize(i)), true
	}
	// parse8, written out (it is just over the inliner's budget): the
	// bytes before the digits become '0's, every byte must be a digit,
	// then the digits are combined pairwise.
	const zeros = 0x3030303030303030
	w := binary.LittleEndian.Uint64(key[n-8:])
	low := uint64(1)<<(uint(8*(8-(n-len(KeyPrefix))))&63) - 1
	if n == len(KeyPrefix)+8 {
		low = 0
	}
	w = w&^low | zeros&low
	if w&0xF0F0F0F0F0F0F0F0 != zeros || (w+0x0606060606060606)&0xF0F0F0F0F0F0F0F0 != zeros {
		return dst, false
	}
	w -= zeros
	w = (w*10 + w>>8) & 0x00FF00FF00FF00FF
	w = (w*100 + w>>16) & 0x0000FFFF0000FFFF
	i := (w*10000 + w>>32) & 0xFFFFFFFF
	l := len(dst)
	if cap(dst)-l < n {
		dst = slices.Grow(dst, n)
	}
	dst = dst[:l+n]
	v := dst[l:]
	t := c.Tag(i, 0, n)
	// n is 8 to 12: the head, one filler word at 4 (overwritten in part
	// by the tail where n < 12), the tail; as PutValue writes them.
	binary.LittleEndian.PutUint32(v, t)
	binary.LittleEndian.PutUint32(v[4:], t^(4*0x01010101+0x03020100))
	binary.LittleEndian.PutUint32(v[n-4:], ^t)
	return dst, true
}
