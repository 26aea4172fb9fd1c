//go:build !unix

package shardcache

// allocOffHeap falls back to one pointer-free heap slice where anonymous
// mappings are not available; the GC does not scan its contents either.
func allocOffHeap(n int) ([]byte, error) { return make([]byte, n), nil }

func freeOffHeap([]byte) error { return nil }

func dropPages(b []byte) { clear(b) }
