package shardcache

import (
	"time"

	"github.com/cachebench/cachebench/internal/engine/shardcache"
)

// Cache is a sharded, GC-free, byte-bounded cache. All its methods are
// safe for concurrent use. It is the internal engine's type under a name
// of this package, so that its methods are documented here; each method
// calls the engine's and is inlined into its caller, so it costs nothing.
type Cache shardcache.Cache

// New returns a cache configured by cfg, or an error wrapping ErrConfig.
// Its memory is mapped at once but backed only as entries are written;
// Close gives it back.
func New(cfg Config) (*Cache, error) {
	c, err := shardcache.New(cfg)
	return (*Cache)(c), err
}

func (c *Cache) engine() *shardcache.Cache { return (*shardcache.Cache)(c) }

// Get appends the value stored under key to dst and returns the extended
// slice and true, or dst and false when the key is absent or expired. It
// takes no lock and does not allocate when dst has room for the value.
func (c *Cache) Get(dst, key []byte) ([]byte, bool) { return c.engine().Get(dst, key) }

// Has reports whether key holds a live entry. It changes no counter and
// does not count as a use for the eviction policy.
func (c *Cache) Has(key []byte) bool { return c.engine().Has(key) }

// Set stores a copy of val under key with Config.DefaultTTL, replacing any
// previous value. It returns an error wrapping ErrEntryTooLarge for an
// entry that can never fit (nothing is evicted for it), ErrClosed after
// Close, and nil for an entry the policy did not admit (Config.OnEvict
// sees ReasonRejected).
func (c *Cache) Set(key, val []byte) error { return c.engine().Set(key, val) }

// SetWithTTL is Set with a per-entry TTL; ttl <= 0 means the entry never
// expires.
func (c *Cache) SetWithTTL(key, val []byte, ttl time.Duration) error {
	return c.engine().SetWithTTL(key, val, ttl)
}

// Delete removes key and reports whether a live entry was removed.
func (c *Cache) Delete(key []byte) bool { return c.engine().Delete(key) }

// GetBatch looks keys up in order and calls fn once per key with its
// value, valid only during the call, prefetching the index slots of the
// keys ahead.
func (c *Cache) GetBatch(keys [][]byte, fn func(i int, val []byte, found bool)) error {
	return c.engine().GetBatch(keys, fn)
}

// Len returns the number of entries held, including expired entries not
// yet removed.
func (c *Cache) Len() int { return c.engine().Len() }

// Stats returns a snapshot of the counters and sizes.
func (c *Cache) Stats() Stats { return c.engine().Stats() }

// MaxEntrySize returns the largest len(key)+len(value) Set accepts.
func (c *Cache) MaxEntrySize() int { return c.engine().MaxEntrySize() }

// DeleteExpired removes every expired entry now (a background goroutine
// does it incrementally) and returns how many it removed.
func (c *Cache) DeleteExpired() int { return c.engine().DeleteExpired() }

// Reset removes every entry without calling OnEvict and gives the
// physical memory back to the system; counters are kept.
func (c *Cache) Reset() { c.engine().Reset() }

// Close releases the cache's memory. Afterwards Get misses, Set returns
// ErrClosed, and Close returns nil again.
func (c *Cache) Close() error { return c.engine().Close() }
