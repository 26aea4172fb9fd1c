package cachebench_test

import (
	"fmt"
	"sync"

	"github.com/cachebench/cachebench"
)

// mapCache is an adapter for a plain map bounded by entries: the smallest
// adapter that passes the conformance suite (package cachetest).
type mapCache struct {
	mu    sync.RWMutex
	m     map[string][]byte
	limit int
}

func (c *mapCache) Name() string { return "example-map" }

func (c *mapCache) Set(key, val []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[string(key)]; !ok && len(c.m) >= c.limit {
		for k := range c.m { // evict any one entry
			delete(c.m, k)
			break
		}
	}
	c.m[string(key)] = append([]byte{}, val...) // keep a copy, not the caller's buffer
	return nil
}

func (c *mapCache) Get(dst, key []byte) ([]byte, bool, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[string(key)]
	return append(dst, v...), ok, nil
}

func (c *mapCache) Close() error { return nil }

// Config states how the adapter uses its budget (cachebench.Configurer).
func (c *mapCache) Config() map[string]string {
	return map[string]string{"budget": "Options.Entries entries", "eviction": "random"}
}

// An adapter is registered in an init function, so that every command,
// and the child processes of gc-pause, see it; main then calls
// cachebench.Main() (not run here: it parses the process's arguments).
func Example() {
	cachebench.Register(cachebench.Factory{
		Name:        "example-map",
		Kind:        cachebench.InMemory,
		Description: "a Go map bounded by Options.Entries, random eviction",
		New: func(o cachebench.Options) (cachebench.Adapter, error) {
			return &mapCache{m: map[string][]byte{}, limit: o.Entries}, nil
		},
	})

	// What the benchmarks do with it, in short:
	a := &mapCache{m: map[string][]byte{}, limit: 100}
	_ = a.Set([]byte("k"), []byte("v"))
	val, found, _ := a.Get([]byte("value: "), []byte("k"))
	fmt.Printf("%s %v\n", val, found)
	// Output: value: v true
}
