// Package yourcache is a toy cache for cachebench's example module: a map
// bounded by a number of entries, evicting the oldest key first (FIFO),
// behind one mutex. It stands for the cache you want to measure; it does
// not import cachebench, and its methods already have the shape of
// cachebench.Adapter, so the benchmark program registers it directly. A
// cache with other method signatures gets a small adapter type instead.
package yourcache

import "sync"

// Cache holds up to a fixed number of entries.
type Cache struct {
	mu    sync.Mutex
	m     map[string][]byte
	order []string // keys in insertion order, oldest first
	limit int
}

// New returns a cache that holds at most limit entries (at least 1).
func New(limit int) *Cache {
	return &Cache{m: make(map[string][]byte), limit: max(limit, 1)}
}

// Name is the cache's name in cachebench's tables.
func (c *Cache) Name() string { return "yourcache" }

// Set stores a copy of val under key, evicting the oldest key when full.
func (c *Cache) Set(key, val []byte) error {
	v := append([]byte{}, val...) // the caller may reuse val
	c.mu.Lock()
	defer c.mu.Unlock()
	k := string(key)
	if _, ok := c.m[k]; !ok {
		if len(c.order) >= c.limit {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, k)
	}
	c.m[k] = v
	return nil
}

// Get appends the value of key to dst.
func (c *Cache) Get(dst, key []byte) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[string(key)]
	return append(dst, v...), ok, nil
}

// Len is the number of entries held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Config says how the cache uses cachebench's budget.
func (c *Cache) Config() map[string]string {
	return map[string]string{"budget": "Options.Entries entries", "eviction": "FIFO", "lock": "one sync.Mutex"}
}

// Close drops the entries.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m, c.order = nil, nil
	return nil
}
