package main

import (
	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/engine/netserver"
)

// network checks the network adapters' flags and returns their options.
// A network adapter that would start its own server needs the binary on
// PATH: its absence is a usage error (exit 2) naming the Debian package,
// found before anything is generated or measured.
func (f *runFlags) network(factories []engine.Factory) (engine.NetworkOptions, error) {
	n := engine.NetworkOptions{
		MemcachedAddrs: f.memcachedAddr, RedisAddr: f.redisAddr, RedisCluster: f.redisCluster,
		Servers: f.servers, ConnsPerWorker: f.connsPerWorker, Pipeline: f.pipeline, Timeout: f.timeout,
	}
	switch {
	case f.servers < 1 || f.servers > 64:
		return n, usageErrorf("--servers must be in 1..64, got %d", f.servers)
	case f.connsPerWorker < 1 || f.connsPerWorker > 1024:
		return n, usageErrorf("--conns-per-worker must be in 1..1024, got %d", f.connsPerWorker)
	case f.pipeline < 1 || f.pipeline > 100_000:
		return n, usageErrorf("--pipeline must be in 1..100000, got %d", f.pipeline)
	case f.timeout <= 0:
		return n, usageErrorf("--timeout must be positive, got %v", f.timeout)
	case f.duration < 0:
		return n, usageErrorf("--duration must not be negative, got %v", f.duration)
	case f.redisAddr != "" && len(f.redisCluster) > 0:
		return n, usageErrorf("--redis-addr and --redis-cluster are exclusive")
	}
	for _, fac := range factories {
		var need []string
		switch {
		case fac.Name == "memcached" && len(f.memcachedAddr) == 0:
			need = []string{"memcached"}
		case (fac.Name == "redis" || fac.Name == "redis-rueidis") && f.redisAddr == "" && len(f.redisCluster) == 0:
			need = []string{"redis-server"}
			if f.servers >= 3 {
				need = append(need, "redis-cli")
			}
		}
		for _, bin := range need {
			if _, err := netserver.LookBinary(bin); err != nil {
				return n, usageErrorf("--adapters %s: %w", fac.Name, err)
			}
		}
	}
	return n, nil
}
