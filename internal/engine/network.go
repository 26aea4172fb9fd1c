package engine

import "time"

// NetworkOptions configures the network adapters (memcached, Redis). It
// travels in Options rather than in package-level variables so that every
// adapter instance carries its own settings: tests build adapters with
// different servers side by side, and a run's manifest states what each
// adapter was given.
//
// Without addresses an adapter starts its own server (see
// internal/engine/netserver) with Options.MemoryBytes as the server's limit.
type NetworkOptions struct {
	// MemcachedAddrs are host:port of running memcached servers; more than
	// one shards keys over them with the client's server selector.
	MemcachedAddrs []string
	// RedisAddr is host:port of a running Redis server.
	RedisAddr string
	// RedisCluster are seed addresses of a running Redis Cluster.
	RedisCluster []string
	// Workers is the number of goroutines that will drive the adapter at
	// once (0: GOMAXPROCS at construction).
	Workers int
	// ConnsPerWorker sizes the connection pool: Workers × ConnsPerWorker
	// connections (0: 1).
	ConnsPerWorker int
	// Pipeline is how many commands a batched lookup (GetBatch) sends per
	// round trip on Redis (0: 1, no pipelining).
	Pipeline int
	// Timeout bounds each request (0: 5 s).
	Timeout time.Duration
	// Servers asks an adapter that starts its own servers for this many
	// (memcached shards; 3 or more starts a Redis Cluster for "redis" and
	// "redis-rueidis"). 0 or 1: one server.
	Servers int
}

// Footprint is what an adapter holds against its memory limit.
type Footprint struct {
	// HeldBytes is the memory the cache reports for what it holds (live
	// items: memcached "bytes", Redis used_memory, an in-process cache's
	// own byte count). Source says which.
	HeldBytes int64
	// Items is the number of entries held.
	Items int64
	// LimitBytes is the configured limit.
	LimitBytes int64
	// RSSBytes is the resident memory of the servers cachebench started
	// (from /proc/PID/status), 0 when not known (a server given by address).
	RSSBytes int64
	// Source names the statistics HeldBytes comes from.
	Source string
}

// Footprinter is implemented by adapters that can report their Footprint;
// the runner reads it after a pass, outside any timed region.
type Footprinter interface {
	Footprint() (Footprint, error)
}
