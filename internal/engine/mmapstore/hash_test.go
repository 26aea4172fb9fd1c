package mmapstore

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// TestHashSpread builds indexes from key shapes that trip weak hashes
// (counters, binary integers, keys differing in one byte, every length
// class of hashKey) and checks that in the buckets (home bucket from the
// hash's high bits, tags from its low bits) nearly every key sits in its
// home bucket, as with a random hash.
func TestHashSpread(t *testing.T) {
	const n = 40000
	shapes := map[string]func(i int) []byte{
		"key_%d":     func(i int) []byte { return fmt.Appendf(nil, "key_%d", i) },
		"uint64 le":  func(i int) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(i)) },
		"uint64 be":  func(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)<<20) },
		"3 bytes":    func(i int) []byte { return []byte{byte(i), byte(i >> 8), byte(i >> 16)} },
		"uint32 be":  func(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)) },
		"16 zeros+i": func(i int) []byte { return append(make([]byte, 12), binary.BigEndian.AppendUint32(nil, uint32(i))...) },
		"long":       func(i int) []byte { return fmt.Appendf(nil, "a-rather-long-prefix/%032d", i) },
		"mixed len":  func(i int) []byte { return fmt.Appendf(nil, "%x", i*7919) },
	}
	for name, key := range shapes {
		t.Run(name, func(t *testing.T) {
			seq := func(yield func([]byte, []byte) bool) {
				for i := range n {
					if !yield(key(i), nil) {
						return
					}
				}
			}
			s3 := mustOpen(t, build(t, t.TempDir(), "h3", seq, BuildOptions{Seed: 3}))
			st3, err := s3.Inspect()
			if err != nil {
				t.Fatal(err)
			}
			// A random hash at the default fill puts about 9 in 10 keys
			// of these sizes in their home bucket (mean probe ≈ 1.1).
			if st3.MeanProbe > 1.2 || st3.Header.MaxProbe > 8 {
				t.Errorf("mean probe %.3f buckets, max %d", st3.MeanProbe, st3.Header.MaxProbe)
			}
		})
	}
	// The seed moves keys.
	same := 0
	for i := range 1000 {
		k := fmt.Appendf(nil, "key_%d", i)
		if hashKey(k, 1)&0xffff == hashKey(k, 2)&0xffff {
			same++
		}
	}
	if same > 5 {
		t.Errorf("%d of 1000 keys keep their slot when the seed changes", same)
	}
}
