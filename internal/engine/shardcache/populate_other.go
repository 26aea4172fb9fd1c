//go:build !linux

package shardcache

// populate does nothing where MADV_POPULATE_WRITE does not exist: the
// pages of an index fault in one by one as it is written.
func populate(b []byte) {}

// hugePages does nothing where transparent huge pages cannot be asked for,
// and reports that b stays on small pages.
func hugePages([]byte) bool { return false }
