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
		panic("workloads: value buffer of " + strconv.Itoa(n) + " bytes, need at least " + strconv.Itoa(MinValueSize))
	}
	t := c.Tag(i, v, n)
	binary.LittleEndian.PutUint32(dst, t)
	body := 4
	if n >= diagValueSize {
		binary.LittleEndian.PutUint32(dst[4:], uint32(i))
		binary.LittleEndian.PutUint32(dst[8:], v)
		body = 12
	}
	for j := body; j < n-4; j++ {
		dst[j] = byte(t>>(8*(j&3))) ^ byte(j)
	}
	binary.LittleEndian.PutUint32(dst[n-4:], ^t)
}

// AppendValue appends the n-byte value of key index i, version v to dst.
func (c Codec) AppendValue(dst []byte, i uint64, v uint32, n int) []byte {
	l := len(dst)
	dst = slices.Grow(dst, n)[:l+n]
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
func ParseKey(key []byte) (uint64, bool) {
	n := len(key)
	if n <= len(KeyPrefix) || n > MaxKeySize || string(key[:len(KeyPrefix)]) != KeyPrefix {
		return 0, false
	}
	d := key[len(KeyPrefix):]
	if d[0] == '0' && len(d) > 1 {
		return 0, false
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
