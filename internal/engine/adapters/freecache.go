package adapters

import (
	"errors"
	"fmt"

	"github.com/coocood/freecache"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "freecache",
		ByteBudget:  true,
		Kind:        engine.InMemory,
		Description: "coocood/freecache: 256 segments of preallocated ring buffers, byte-bounded",
		New:         newFreeCacheAdapter,
	})
}

const (
	freecacheSegments  = 256
	freecacheMinSize   = 512 << 10 // NewCache raises smaller sizes to this
	freecacheEntryHead = 24        // freecache.ENTRY_HDR_SIZE
)

// freeCacheAdapter drives freecache with Options.MemoryBytes, allocated up
// front by freecache, and no expiry.
type freeCacheAdapter struct {
	c    *freecache.Cache
	size int
}

func newFreeCacheAdapter(o engine.Options) (engine.Adapter, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	size := max(int(o.MemoryBytes), freecacheMinSize)
	return &freeCacheAdapter{c: freecache.NewCache(size), size: size}, nil
}

func (a *freeCacheAdapter) Name() string { return "freecache" }

// maxEntry is the largest key+value freecache accepts: a quarter of one
// segment's ring buffer less the entry header.
func (a *freeCacheAdapter) maxEntry() int {
	return (a.size/freecacheSegments)/4 - freecacheEntryHead
}

// Set copies key and value into freecache's ring (freecache copies);
// ErrLargeKey and ErrLargeEntry are returned wrapped with engine.ErrEntryTooLarge.
func (a *freeCacheAdapter) Set(key, val []byte) error {
	err := a.c.Set(key, val, 0)
	if err == nil {
		return nil
	}
	if errors.Is(err, freecache.ErrLargeEntry) || errors.Is(err, freecache.ErrLargeKey) {
		return fmt.Errorf("freecache: key %q with %d-byte value (limit key+value <= %d): %w: %w", truncKey(key), len(val), a.maxEntry(), engine.ErrEntryTooLarge, err)
	}
	return fmt.Errorf("freecache: set key %q: %w", truncKey(key), err)
}

// Get appends the value to dst through GetFn, which hands over a view of
// the ring buffer under the segment lock; the closure does not escape, so
// a hit costs no allocation when dst has room.
func (a *freeCacheAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	err := a.c.GetFn(key, func(v []byte) error {
		dst = append(dst, v...)
		return nil
	})
	if err == nil {
		return dst, true, nil
	}
	if errors.Is(err, freecache.ErrNotFound) {
		return dst, false, nil
	}
	return dst, false, fmt.Errorf("freecache: get key %q: %w", truncKey(key), err)
}

// Delete implements engine.Deleter.
func (a *freeCacheAdapter) Delete(key []byte) (bool, error) {
	return a.c.Del(key), nil
}

// Len implements engine.Lener.
func (a *freeCacheAdapter) Len() int { return int(a.c.EntryCount()) }

// Stats implements engine.Statser.
func (a *freeCacheAdapter) Stats() map[string]uint64 {
	return map[string]uint64{
		"hits":       nonNeg(a.c.HitCount()),
		"misses":     nonNeg(a.c.MissCount()),
		"entries":    nonNeg(a.c.EntryCount()),
		"evacuates":  nonNeg(a.c.EvacuateCount()),
		"expired":    nonNeg(a.c.ExpiredCount()),
		"overwrites": nonNeg(a.c.OverwriteCount()),
		// The whole arena is allocated up front for entries: what it
		// holds against a memory budget.
		"capacity_bytes": uint64(a.size),
	}
}

// Config implements engine.Configurer.
func (a *freeCacheAdapter) Config() map[string]string {
	return map[string]string{
		"budget":        "Options.MemoryBytes as freecache.NewCache(size), preallocated",
		"size_bytes":    itoa(a.size),
		"min_size":      itoa(freecacheMinSize) + " (freecache raises smaller sizes)",
		"segments":      itoa(freecacheSegments),
		"segment_bytes": itoa(a.size / freecacheSegments),
		"max_entry":     fmt.Sprintf("key+value <= %d bytes (segment/4 - 24-byte header); key <= 65535; larger: ErrEntryTooLarge", a.maxEntry()),
		"expiry":        "none (expireSeconds 0)",
		"eviction":      "approximate LRU within a segment's ring",
		"get":           "GetFn view appended to dst",
	}
}

// Close drops every entry; freecache has no Close and its memory goes
// with the adapter.
func (a *freeCacheAdapter) Close() error {
	a.c.Clear()
	return nil
}
