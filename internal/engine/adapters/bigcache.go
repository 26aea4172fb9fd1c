package adapters

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/allegro/bigcache/v3"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "bigcache",
		ByteBudget:  true,
		Kind:        engine.InMemory,
		Description: "allegro/bigcache v3: sharded byte queues, byte-bounded (HardMaxCacheSize)",
		New:         newBigCacheAdapter,
		// Each shard's encode buffer is MaxEntrySize: 1 GiB of 1 MiB values.
		Fixed: func(o engine.Options) int64 { return bigcacheShards * int64(max(o.MaxValueSize, 0)) },
	})
}

const (
	bigcacheShards = 1024 // bigcache.DefaultConfig's value
	// bigcacheHeader is bigcache's per-entry header (timestamp, hash, key
	// length) before the queue's own 1–5 byte length prefix.
	bigcacheHeader = 18
	// bigcacheNoExpiry keeps entries for a century: a run never expires
	// anything, as no other adapter does.
	bigcacheNoExpiry = 100 * 365 * 24 * time.Hour
)

// bigCacheAdapter drives bigcache with a byte budget and no expiry.
//
// Sizing decision: MaxEntriesInWindow is 0 (so each shard starts at
// bigcache's minimum of 10 entries) because the suite gives no adapter a
// size hint, and MaxEntriesInWindow only preallocates the shard maps and
// byte queues; the queues then grow by doubling up to the hard limit during
// the fill, whose cost is counted, exactly like the map adapter's growth.
// MaxEntrySize is Options.MaxValueSize: it only sizes each shard's encode
// buffer (and that tiny initial queue), so no Set reallocates it.
type bigCacheAdapter struct {
	c        *bigcache.BigCache
	cfg      bigcache.Config
	maxShard int
}

func newBigCacheAdapter(o engine.Options) (engine.Adapter, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	mb := max(int(o.MemoryBytes>>20), 1)
	cfg := bigcache.Config{
		Shards:             bigcacheShards,
		LifeWindow:         bigcacheNoExpiry,
		CleanWindow:        0, // no cleaner goroutine; with the lifetime above nothing expires
		MaxEntriesInWindow: 0,
		MaxEntrySize:       max(o.MaxValueSize, 0),
		StatsEnabled:       false, // per-key hit counts; the global counters below are always kept
		Verbose:            false,
		HardMaxCacheSize:   mb,
	}
	c, err := bigcache.New(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("bigcache: new (hard max %d MB): %w", mb, err)
	}
	return &bigCacheAdapter{c: c, cfg: cfg, maxShard: (mb << 20) / bigcacheShards}, nil
}

func (a *bigCacheAdapter) Name() string { return "bigcache" }

// Set passes the key through unsafeString: bigcache hashes it and copies
// it into its own entry buffer before returning, and keeps no reference
// (no OnRemove callback is configured). Keys longer than 65535 bytes are
// rejected here because bigcache stores the key length in 16 bits and
// would corrupt such an entry.
func (a *bigCacheAdapter) Set(key, val []byte) error {
	if len(key) > 0xFFFF {
		return fmt.Errorf("bigcache: key of %d bytes: %w (keys are limited to 65535 bytes)", len(key), engine.ErrEntryTooLarge)
	}
	// bigcache v3.1.0's Set has one error, "entry is bigger than max
	// shard size" (cacheShard.set), with no sentinel to test: every Set
	// error is an entry refused for its size.
	if err := a.c.Set(unsafeString(key), val); err != nil {
		return fmt.Errorf("bigcache: set key %q (%d-byte value, shard limit %d bytes): %w: %w", truncKey(key), len(val), a.maxShard, engine.ErrEntryTooLarge, err)
	}
	return nil
}

// Get appends the value to dst. The key goes through unsafeString since
// bigcache only hashes and compares it. bigcache itself allocates a copy
// of the key and of the value on every hit; its API has no way around it.
func (a *bigCacheAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	v, err := a.c.Get(unsafeString(key))
	if err != nil {
		if errors.Is(err, bigcache.ErrEntryNotFound) {
			return dst, false, nil
		}
		return dst, false, fmt.Errorf("bigcache: get key %q: %w", truncKey(key), err)
	}
	return append(dst, v...), true, nil
}

// Delete implements engine.Deleter. bigcache deletes by hash alone: a key
// whose 64-bit hash equals another's can remove that other entry.
func (a *bigCacheAdapter) Delete(key []byte) (bool, error) {
	err := a.c.Delete(unsafeString(key))
	if err == nil {
		return true, nil
	}
	if errors.Is(err, bigcache.ErrEntryNotFound) {
		return false, nil
	}
	return false, fmt.Errorf("bigcache: delete key %q: %w", truncKey(key), err)
}

// Len implements engine.Lener.
func (a *bigCacheAdapter) Len() int { return a.c.Len() }

// Stats implements engine.Statser. collisions counts lookups that found
// another key under the same hash; that other key's entry had replaced the
// looked-up one at Set time, which bigcache does silently.
func (a *bigCacheAdapter) Stats() map[string]uint64 {
	s := a.c.Stats()
	return map[string]uint64{
		"hits":           nonNeg(s.Hits),
		"misses":         nonNeg(s.Misses),
		"delete_hits":    nonNeg(s.DelHits),
		"delete_misses":  nonNeg(s.DelMisses),
		"collisions":     nonNeg(s.Collisions),
		"entries":        uint64(a.c.Len()),
		"capacity_bytes": uint64(a.c.Capacity()),
	}
}

// Config implements engine.Configurer.
func (a *bigCacheAdapter) Config() map[string]string {
	return map[string]string{
		"budget":                 "Options.MemoryBytes, rounded down to whole MiB (at least 1) as HardMaxCacheSize",
		"hard_max_cache_size_mb": itoa(a.cfg.HardMaxCacheSize),
		"shards":                 itoa(a.cfg.Shards),
		"max_shard_bytes":        itoa(a.maxShard),
		"max_entry":              fmt.Sprintf("%d-byte header + key + value + 1-5 byte length must fit one shard (%d bytes); a larger Set fails after bigcache has evicted that shard", bigcacheHeader, a.maxShard),
		"life_window":            a.cfg.LifeWindow.String(),
		"clean_window":           "0 (no cleaner; nothing expires within a run)",
		"max_entries_in_window":  itoa(a.cfg.MaxEntriesInWindow) + " (no preallocation: shards start at 10 entries and grow, like the map adapter)",
		"max_entry_size":         itoa(a.cfg.MaxEntrySize) + " (Options.MaxValueSize; sizes the per-shard encode buffer)",
		"stats_enabled":          btoa(a.cfg.StatsEnabled) + " (per-key counters off; global hit/miss/collision counters are always on)",
		"hasher":                 "fnv64a (default)",
		"collision_policy":       "a Set whose 64-bit hash equals a stored key's replaces that entry silently; Delete works by hash alone and can remove a colliding key",
		"get":                    "bigcache copies key and value per hit; appended to dst",
	}
}

// Close stops bigcache and drops its memory.
func (a *bigCacheAdapter) Close() error {
	if err := a.c.Close(); err != nil {
		return fmt.Errorf("bigcache: close: %w", err)
	}
	return nil
}
