package gcpause

import (
	"encoding/binary"
	"fmt"
)

// KeyLen is the length of every key: "key-" and ten decimal digits, the
// format of bigcache's published comparison.
const KeyLen = 14

// MinValueSize is the smallest value size: 8 bytes of key index and an
// 8-byte check.
const MinValueSize = 16

// MaxValueSize is the largest value size the command accepts.
const MaxValueSize = 1 << 20

// MaxEntries bounds --entries: the key format has ten digits, and more
// than 2^31 entries of at least 30 bytes could not fit any machine this
// tool runs on anyway.
const MaxEntries = 1 << 31

// FormatKey writes key i ("key-%010d") into dst, which must hold KeyLen
// bytes, and returns dst[:KeyLen]. It does not allocate, so a fill can
// reuse one buffer for every key.
func FormatKey(dst []byte, i uint64) []byte {
	dst = dst[:KeyLen]
	copy(dst, "key-")
	for p := KeyLen - 1; p >= 4; p-- {
		dst[p] = byte('0' + i%10)
		i /= 10
	}
	return dst
}

// Constants of the value generator: a splitmix64 finaliser for the check
// word and Knuth's MMIX LCG for the filler, both cheap enough to run once
// per entry inside the fill loop.
const (
	lcgMul = 6364136223846793005
	lcgAdd = 1442695040888963407
)

func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// check is the word stored after the index: it depends on the index and
// the value length, so a value of another key, or a truncated value, is
// recognised without knowing which key was asked for.
func check(i uint64, n int) uint64 {
	return mix64(i ^ uint64(n)<<40 ^ 0x9e3779b97f4a7c15)
}

// FillValue writes the value of key i into dst (len(dst) ≥ MinValueSize
// bytes): the index, the check word, then filler derived from both. It does
// not allocate.
func FillValue(dst []byte, i uint64) {
	if len(dst) < MinValueSize {
		panic(fmt.Sprintf("gcpause: value buffer of %d bytes, need at least %d", len(dst), MinValueSize))
	}
	c := check(i, len(dst))
	binary.LittleEndian.PutUint64(dst[0:8], i)
	binary.LittleEndian.PutUint64(dst[8:16], c)
	x := c
	off := MinValueSize
	for ; off+8 <= len(dst); off += 8 {
		x = x*lcgMul + lcgAdd
		binary.LittleEndian.PutUint64(dst[off:], x)
	}
	x = x*lcgMul + lcgAdd
	for ; off < len(dst); off++ {
		dst[off] = byte(x)
		x >>= 8
	}
}

// DecodeValue returns the key index a value claims to belong to, and
// whether its check word is consistent with that index and its length. It
// is for diagnostics (whose value came back); correctness is decided by
// comparing with the regenerated value (see VerifyValue).
func DecodeValue(v []byte) (idx uint64, ok bool) {
	if len(v) < MinValueSize {
		return 0, false
	}
	idx = binary.LittleEndian.Uint64(v[0:8])
	return idx, binary.LittleEndian.Uint64(v[8:16]) == check(idx, len(v))
}

// VerifyValue reports whether got is exactly the value of key i with the
// given size. scratch is a reused buffer of at least size bytes.
func VerifyValue(got, scratch []byte, i uint64, size int) bool {
	if len(got) != size {
		return false
	}
	want := scratch[:size]
	FillValue(want, i)
	return string(got) == string(want)
}
