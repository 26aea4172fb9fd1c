package shardcache

import (
	"testing"
	"unsafe"
)

// The shard struct is padded so neighbouring shards never share a cache
// line; a field added without adjusting the padding must fail here.
func TestShardPadding(t *testing.T) {
	if sz := unsafe.Sizeof(shard{}); sz%128 != 0 {
		t.Fatalf("sizeof(shard) = %d, want a multiple of 128", sz)
	}
}
