package adapters

import (
	"github.com/VictoriaMetrics/fastcache"

	"github.com/cachebench/cachebench/internal/engine"
)

// Footprints of the in-process caches that count their own bytes, so that
// get-or-set can put "bytes cached / limit" of in-process caches and
// network servers in one table. An in-process cache shares its process's
// RSS with everything else, so RSSBytes stays 0 for them.

// Footprint implements engine.Footprinter with shardcache's BytesUsed
// (ring bytes in use, entry headers included, plus the indexes) against
// Options.MemoryBytes.
func (a *shardcacheAdapter) Footprint() (engine.Footprint, error) {
	s := a.c.Stats()
	return engine.Footprint{
		HeldBytes:  int64(s.BytesUsed),
		Items:      int64(s.Entries),
		LimitBytes: a.opts.MemoryBytes,
		Source:     "shardcache Stats: BytesUsed, Entries",
	}, nil
}

// Footprint implements engine.Footprinter with fastcache's BytesSize (the
// chunks allocated to its rings, which it fills before wrapping) against
// the configured size.
func (a *fastCacheAdapter) Footprint() (engine.Footprint, error) {
	var s fastcache.Stats
	a.c.UpdateStats(&s)
	return engine.Footprint{
		HeldBytes:  int64(s.BytesSize),
		Items:      int64(s.EntriesCount),
		LimitBytes: a.maxBytes,
		Source:     "fastcache Stats: BytesSize (allocated chunks), EntriesCount",
	}, nil
}
