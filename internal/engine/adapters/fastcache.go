package adapters

import (
	"fmt"
	"sync/atomic"

	"github.com/VictoriaMetrics/fastcache"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "fastcache",
		ByteBudget:  true,
		Kind:        engine.InMemory,
		Description: "VictoriaMetrics/fastcache: 512 buckets of off-heap 64 KiB chunk rings, byte-bounded",
		New:         newFastCacheAdapter,
	})
}

const (
	fastcacheBuckets   = 512
	fastcacheChunk     = 64 << 10
	fastcacheEntryHead = 4 // 2-byte key length + 2-byte value length
)

// fastCacheAdapter drives fastcache.Cache with Options.MemoryBytes.
//
// fastcache's Set silently drops an entry whose key, value and 4-byte
// header reach 64 KiB. SetBig/GetBig would store larger values, but GetBig
// only reads values written by SetBig (a value is replaced by a 16-byte
// pointer record), so using them for large values only would change how
// small values are stored and looked up. This adapter therefore keeps the
// plain API and turns the silent drop into an engine.ErrEntryTooLarge error, so a
// run reports it instead of counting the entry as an ordinary miss.
type fastCacheAdapter struct {
	c        *fastcache.Cache
	maxBytes int64
	rejected atomic.Uint64
}

func newFastCacheAdapter(o engine.Options) (engine.Adapter, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return &fastCacheAdapter{c: fastcache.New(int(o.MemoryBytes)), maxBytes: o.MemoryBytes}, nil
}

func (a *fastCacheAdapter) Name() string { return "fastcache" }

// Set copies key and value into fastcache's chunks (fastcache copies).
func (a *fastCacheAdapter) Set(key, val []byte) error {
	if len(key) >= 1<<16 || len(val) >= 1<<16 || fastcacheEntryHead+len(key)+len(val) >= fastcacheChunk {
		a.rejected.Add(1)
		return fmt.Errorf("fastcache: key %q with %d-byte value: %w (key+value+4 must stay below 64 KiB)", truncKey(key), len(val), engine.ErrEntryTooLarge)
	}
	a.c.Set(key, val)
	return nil
}

// Get appends into dst with HasGet, which allocates nothing when dst has
// room and tells an empty value from a miss.
func (a *fastCacheAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	dst, ok := a.c.HasGet(dst, key)
	return dst, ok, nil
}

// Delete implements engine.Deleter. fastcache's Del reports nothing, so
// presence comes from a Has just before it (not atomic with the Del, and
// counted as a get call in the stats). fastcache deletes by 64-bit hash.
func (a *fastCacheAdapter) Delete(key []byte) (bool, error) {
	ok := a.c.Has(key)
	a.c.Del(key)
	return ok, nil
}

// Len implements engine.Lener with fastcache's EntriesCount, the number
// of hash-index entries; entries overwritten by the ring are removed from
// the index only when the ring wraps, so it can exceed what Get finds.
func (a *fastCacheAdapter) Len() int {
	var s fastcache.Stats
	a.c.UpdateStats(&s)
	return int(s.EntriesCount)
}

// Stats implements engine.Statser.
func (a *fastCacheAdapter) Stats() map[string]uint64 {
	var s fastcache.Stats
	a.c.UpdateStats(&s)
	return map[string]uint64{
		"get_calls":          s.GetCalls,
		"set_calls":          s.SetCalls,
		"misses":             s.Misses,
		"collisions":         s.Collisions,
		"corruptions":        s.Corruptions,
		"entries":            s.EntriesCount,
		"bytes_size":         s.BytesSize,
		"max_bytes_size":     s.MaxBytesSize,
		"evicted_bytes":      s.EvictedBytes,
		"rejected_too_large": a.rejected.Load(),
	}
}

// Config implements engine.Configurer.
func (a *fastCacheAdapter) Config() map[string]string {
	perBucket := (a.maxBytes + fastcacheBuckets - 1) / fastcacheBuckets
	chunks := (perBucket + fastcacheChunk - 1) / fastcacheChunk
	return map[string]string{
		"budget":              "Options.MemoryBytes as fastcache.New(maxBytes)",
		"max_bytes":           i64toa(a.maxBytes),
		"buckets":             itoa(fastcacheBuckets),
		"chunks_per_bucket":   i64toa(chunks),
		"effective_max_bytes": i64toa(chunks*fastcacheChunk*fastcacheBuckets) + " (each bucket rounds up to whole 64 KiB chunks)",
		"retention":           "ring of chunks per bucket: once a bucket wraps, the chunk being rewritten is lost, so it keeps (chunks-1)/chunks of its bytes at worst",
		"max_entry":           "key + value + 4 < 65536 bytes; the adapter returns ErrEntryTooLarge where fastcache would drop silently",
		"big_values":          "SetBig/GetBig not used (they change the storage of every value read with GetBig)",
		"collision_policy":    "a Set whose 64-bit hash equals a stored key's replaces it; Del works by hash",
		"memory":              "chunks are mmap'd off the Go heap in 64 MiB slabs",
		"expiry":              "none",
	}
}

// Close releases the cache's chunks back to fastcache's free list (it has
// no Close; Reset frees the chunks and the index).
func (a *fastCacheAdapter) Close() error {
	a.c.Reset()
	return nil
}
