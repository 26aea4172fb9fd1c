package adapters

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/engine/netserver"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "redis",
		Kind:        engine.Network,
		Description: "Redis over loopback (redis/go-redis/v9, ClusterClient for --redis-cluster); else cachebench starts redis-server with maxmemory = budget, allkeys-lru",
		New:         newRedisAdapter,
	})
}

// redisTarget is where a Redis adapter sends its commands: a server or a
// cluster given by address, or ones this adapter started.
type redisTarget struct {
	addrs   []string
	cluster bool
	owned   ownedServers
}

// redisClusterMin is the node count from which an adapter that starts its
// own servers (Options.Network.Servers) makes them a cluster.
const redisClusterMin = 3

// newRedisTarget resolves Options.Network for a Redis adapter, starting
// servers when no address is given, and checks that every address
// answers PING (naming the one that does not).
func newRedisTarget(o engine.Options, timeout netSettings) (redisTarget, error) {
	n := o.Network
	var t redisTarget
	switch {
	case n.RedisAddr != "" && len(n.RedisCluster) > 0:
		return t, errors.New("--redis-addr and --redis-cluster are exclusive: give one server or a cluster's nodes")
	case len(n.RedisCluster) > 0:
		if err := checkAddrs("--redis-cluster", n.RedisCluster); err != nil {
			return t, err
		}
		t.addrs, t.cluster = n.RedisCluster, true
	case n.RedisAddr != "":
		if err := checkAddrs("--redis-addr", []string{n.RedisAddr}); err != nil {
			return t, err
		}
		t.addrs = []string{n.RedisAddr}
	case n.Servers >= redisClusterMin:
		cl, err := netserver.StartRedisCluster(context.Background(), n.Servers, netserver.RedisConfig{LimitBytes: o.MemoryBytes})
		if err != nil {
			return t, err
		}
		t.owned, t.addrs, t.cluster = cl.Servers, cl.Addrs(), true
	default:
		s, err := netserver.StartRedis(context.Background(), netserver.RedisConfig{LimitBytes: o.MemoryBytes})
		if err != nil {
			return t, err
		}
		t.owned, t.addrs = ownedServers{s}, []string{s.Addr}
	}
	for _, addr := range t.addrs {
		if _, err := textCommand(addr, "PING", timeout.timeout, func(string) bool { return true }); err != nil {
			_ = t.owned.stop()
			return redisTarget{}, fmt.Errorf("redis at %s: %w", addr, err)
		}
	}
	return t, nil
}

func (t redisTarget) config(m map[string]string) {
	m["servers"] = strings.Join(t.addrs, ",")
	m["cluster"] = btoa(t.cluster)
	m["budget"] = "Options.MemoryBytes as maxmemory of the servers cachebench starts (split evenly over a cluster's masters), maxmemory-policy allkeys-lru, persistence off (--save \"\" --appendonly no)"
	if len(t.owned) > 0 {
		m["started_by_cachebench"] = t.owned.describe()
	} else {
		m["started_by_cachebench"] = "no: given by address, flushed (FLUSHALL on every master) when the adapter is created"
	}
}

// redisInfoSections are read for Footprint and Stats.
var redisInfoSections = []string{"memory", "stats", "keyspace"}

// redisFootprint sums INFO replies of every master.
func (t redisTarget) footprint(infos []string) (engine.Footprint, error) {
	f := engine.Footprint{Source: "Redis INFO memory used_memory and maxmemory, INFO keyspace keys (summed over masters)"}
	for _, text := range infos {
		m := parseInfo(text)
		f.HeldBytes += atoi64(m["used_memory"])
		f.LimitBytes += atoi64(m["maxmemory"])
		f.Items += redisKeys(m)
	}
	rss, err := t.owned.rss()
	if err != nil {
		return engine.Footprint{}, err
	}
	f.RSSBytes = rss
	return f, nil
}

// redisKeys reads keys= from the "db0:keys=N,expires=..." keyspace line.
func redisKeys(info map[string]string) int64 {
	var n int64
	for k, v := range info {
		if !strings.HasPrefix(k, "db") {
			continue
		}
		for _, kv := range strings.Split(v, ",") {
			if s, ok := strings.CutPrefix(kv, "keys="); ok {
				n += atoi64(s)
			}
		}
	}
	return n
}

func (t redisTarget) stats(infos []string, c *opCounters, err error) map[string]uint64 {
	m := map[string]uint64{"servers": uint64(len(t.addrs))}
	c.stats(m)
	if err != nil {
		m["stats_unavailable"] = 1
		return m
	}
	for _, text := range infos {
		info := parseInfo(text)
		for _, k := range []string{"used_memory", "used_memory_dataset", "used_memory_rss", "maxmemory", "evicted_keys", "keyspace_hits", "keyspace_misses"} {
			m[k] += nonNeg(atoi64(info[k]))
		}
		m["keys"] += nonNeg(redisKeys(info))
	}
	if rss, err := t.owned.rss(); err == nil && len(t.owned) > 0 {
		m["server_rss_bytes"] = nonNeg(rss)
	}
	return m
}

// classify counts a failed request and names the servers in the error.
func (t redisTarget) classify(c *opCounters, op string, key []byte, err error) error {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "OOM "):
		c.outOfMemory.Add(1)
	case strings.Contains(msg, "bulk length"):
		c.tooLarge.Add(1)
		return fmt.Errorf("redis %s: %s %q: %w: %w", strings.Join(t.addrs, ","), op, truncKey(key), ErrEntryTooLarge, err)
	default:
		c.errors.Add(1)
	}
	return fmt.Errorf("redis %s: %s %q: %w", strings.Join(t.addrs, ","), op, truncKey(key), err)
}

// redisAdapter drives Redis through go-redis: a Client for one server, a
// ClusterClient for a cluster (it follows MOVED and keeps the slot map).
type redisAdapter struct {
	c        redis.UniversalClient
	t        redisTarget
	net      netSettings
	counters opCounters
}

func newRedisAdapter(o engine.Options) (engine.Adapter, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ns := resolveNet(o.Network)
	t, err := newRedisTarget(o, ns)
	if err != nil {
		return nil, err
	}
	a := &redisAdapter{t: t, net: ns}
	if t.cluster {
		a.c = redis.NewClusterClient(&redis.ClusterOptions{
			Addrs:        t.addrs,
			PoolSize:     ns.poolSize(),
			DialTimeout:  ns.timeout,
			ReadTimeout:  ns.timeout,
			WriteTimeout: ns.timeout,
			MaxRetries:   -1, // a failure is reported, not hidden by a retry
		})
	} else {
		a.c = redis.NewClient(&redis.Options{
			Addr:         t.addrs[0],
			PoolSize:     ns.poolSize(),
			DialTimeout:  ns.timeout,
			ReadTimeout:  ns.timeout,
			WriteTimeout: ns.timeout,
			MaxRetries:   -1,
		})
	}
	if len(t.owned) == 0 {
		if err := a.eachMaster(func(c *redis.Client) error { return c.FlushAll(context.Background()).Err() }); err != nil {
			_ = a.c.Close()
			return nil, fmt.Errorf("redis %s: FLUSHALL: %w", strings.Join(t.addrs, ","), err)
		}
	}
	return a, nil
}

// eachMaster runs fn on the server, or on every master of the cluster.
func (a *redisAdapter) eachMaster(fn func(c *redis.Client) error) error {
	if cc, ok := a.c.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(context.Background(), func(_ context.Context, c *redis.Client) error { return fn(c) })
	}
	return fn(a.c.(*redis.Client))
}

func (a *redisAdapter) Name() string { return "redis" }

// Set sends SET key val. The key string aliases key: go-redis writes it
// to the connection before returning and keeps no reference.
func (a *redisAdapter) Set(key, val []byte) error {
	if err := a.c.Set(context.Background(), unsafeString(key), val, 0).Err(); err != nil {
		return a.t.classify(&a.counters, "set", key, err)
	}
	return nil
}

// Get appends the value: go-redis reads it into a string, which is then
// copied into dst (the one copy the adapter interface implies).
func (a *redisAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	s, err := a.c.Get(context.Background(), unsafeString(key)).Result()
	if err == redis.Nil {
		return dst, false, nil
	}
	if err != nil {
		return dst, false, a.t.classify(&a.counters, "get", key, err)
	}
	return append(dst, s...), true, nil
}

// GetBatch implements engine.BatchGetter: GETs pipelined Pipeline at a
// time (a ClusterClient splits each pipeline by node).
func (a *redisAdapter) GetBatch(keys [][]byte, fn func(i int, val []byte, found bool)) error {
	ctx := context.Background()
	cmds := make([]*redis.StringCmd, 0, a.net.pipeline)
	for start := 0; start < len(keys); start += a.net.pipeline {
		chunk := keys[start:min(start+a.net.pipeline, len(keys))]
		cmds = cmds[:0]
		pipe := a.c.Pipeline()
		for _, k := range chunk {
			cmds = append(cmds, pipe.Get(ctx, string(k)))
		}
		if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
			return a.t.classify(&a.counters, "pipelined get", chunk[0], err)
		}
		for j, c := range cmds {
			s, err := c.Result()
			switch {
			case err == redis.Nil:
				fn(start+j, nil, false)
			case err != nil:
				return a.t.classify(&a.counters, "pipelined get", chunk[j], err)
			default:
				fn(start+j, []byte(s), true)
			}
		}
	}
	return nil
}

// Delete implements engine.Deleter.
func (a *redisAdapter) Delete(key []byte) (bool, error) {
	n, err := a.c.Del(context.Background(), string(key)).Result()
	if err != nil {
		return false, a.t.classify(&a.counters, "del", key, err)
	}
	return n > 0, nil
}

func (a *redisAdapter) infos() ([]string, error) {
	var mu sync.Mutex
	var out []string
	err := a.eachMaster(func(c *redis.Client) error {
		s, err := c.Info(context.Background(), redisInfoSections...).Result()
		if err != nil {
			return fmt.Errorf("INFO on %s: %w", c.Options().Addr, err)
		}
		mu.Lock()
		out = append(out, s)
		mu.Unlock()
		return nil
	})
	return out, err
}

// Footprint implements engine.Footprinter.
func (a *redisAdapter) Footprint() (engine.Footprint, error) {
	infos, err := a.infos()
	if err != nil {
		return engine.Footprint{}, err
	}
	return a.t.footprint(infos)
}

// Len implements engine.Lener (keys summed over masters; 0 on error).
func (a *redisAdapter) Len() int {
	f, err := a.Footprint()
	if err != nil {
		return 0
	}
	return int(f.Items)
}

// Stats implements engine.Statser.
func (a *redisAdapter) Stats() map[string]uint64 {
	infos, err := a.infos()
	return a.t.stats(infos, &a.counters, err)
}

// Config implements engine.Configurer.
func (a *redisAdapter) Config() map[string]string {
	m := map[string]string{
		"client":      "github.com/redis/go-redis/v9 (RESP3, one request per round trip; ClusterClient for a cluster)",
		"pool_size":   itoa(a.net.poolSize()) + " per node (workers × conns_per_worker)",
		"retries":     "off (MaxRetries -1): a failed request is an error, not retried",
		"pipeline":    itoa(a.net.pipeline) + " GETs per round trip in GetBatch",
		"get_copy":    "go-redis returns the value as a new string; the adapter copies it into dst",
		"expiry":      "none",
		"client_type": map[bool]string{true: "ClusterClient", false: "Client"}[a.t.cluster],
	}
	a.t.config(m)
	a.net.config(m)
	return m
}

// Close closes the client's connections and stops the servers it started.
func (a *redisAdapter) Close() error {
	cerr := a.c.Close()
	serr := a.t.owned.stop()
	a.t.owned = nil
	if serr != nil {
		return serr
	}
	if cerr != nil {
		return fmt.Errorf("redis client close: %w", cerr)
	}
	return nil
}
