package adapters

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/engine/netserver"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "redis",
		ByteBudget:  true,
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
	// guard dials the client's connections and closes them on Interrupt
	// or once the server stops answering.
	guard *connGuard
}

// redisClusterMin is the node count from which an adapter that starts its
// own servers (Options.Network.Servers) makes them a cluster.
const redisClusterMin = 3

// newRedisTarget checks o and resolves Options.Network for a Redis
// adapter, starting servers when no address is given, and checks that
// every address answers PING (naming the one that does not).
func newRedisTarget(o engine.Options) (t redisTarget, ns netSettings, err error) {
	if err := o.Validate(); err != nil {
		return t, ns, err
	}
	ns = resolveNet(o.Network)
	n := o.Network
	switch {
	case n.RedisAddr != "" && len(n.RedisCluster) > 0:
		return t, ns, errors.New("--redis-addr and --redis-cluster are exclusive: give one server or a cluster's nodes")
	case len(n.RedisCluster) > 0:
		if err := checkAddrs("--redis-cluster", n.RedisCluster); err != nil {
			return t, ns, err
		}
		t.addrs, t.cluster = n.RedisCluster, true
	case n.RedisAddr != "":
		if err := checkAddrs("--redis-addr", []string{n.RedisAddr}); err != nil {
			return t, ns, err
		}
		t.addrs = []string{n.RedisAddr}
	case n.Servers >= redisClusterMin:
		cl, err := netserver.StartRedisCluster(context.Background(), n.Servers, netserver.RedisConfig{LimitBytes: o.MemoryBytes})
		if err != nil {
			return t, ns, err
		}
		t.owned, t.addrs, t.cluster = cl.Servers, cl.Addrs(), true
	default:
		s, err := netserver.StartRedis(context.Background(), netserver.RedisConfig{LimitBytes: o.MemoryBytes})
		if err != nil {
			return t, ns, err
		}
		t.owned, t.addrs = ownedServers{s}, []string{s.Addr}
	}
	for _, addr := range t.addrs {
		if _, err := textCommand(addr, "PING", ns.timeout, func(string) bool { return true }); err != nil {
			_ = t.owned.stop()
			return redisTarget{}, ns, fmt.Errorf("redis at %s: %w", addr, err)
		}
	}
	return t, ns, nil
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

// redisReporter gives both Redis adapters one Footprint, Len and Stats,
// from INFO of every master; info is each client's way to ask for it.
type redisReporter struct {
	t        redisTarget
	counters opCounters
	info     func() ([]string, error)
}

// Interrupt implements engine.Interrupter.
func (r *redisReporter) Interrupt() { r.t.guard.Interrupt() }

// Footprint implements engine.Footprinter.
func (r *redisReporter) Footprint() (engine.Footprint, error) {
	infos, err := r.info()
	if err != nil {
		return engine.Footprint{}, err
	}
	return r.t.footprint(infos)
}

// Len implements engine.Lener (keys summed over masters; 0 on error).
func (r *redisReporter) Len() int {
	f, err := r.Footprint()
	if err != nil {
		return 0
	}
	return int(f.Items)
}

// Stats implements engine.Statser.
func (r *redisReporter) Stats() map[string]uint64 {
	infos, err := r.info()
	return r.t.stats(infos, &r.counters, err)
}

// getReply turns a client's answer to one GET into Get's: a nil reply
// (miss says so, in the client's own terms) is a miss, another error is
// counted and named, a value is appended to dst.
func (r *redisReporter) getReply(dst, key []byte, val string, err error, miss bool) ([]byte, bool, error) {
	if miss {
		return dst, false, nil
	}
	if err != nil {
		return dst, false, r.t.classify(&r.counters, "get", key, err)
	}
	return append(dst, val...), true, nil
}

// getBatch looks keys up depth at a time: roundTrip sends one chunk's
// GETs in one round trip and hands each reply to reply, which passes it on
// to fn (a nil reply is a miss) or returns the counted, named error.
func (r *redisReporter) getBatch(keys [][]byte, depth int, fn func(i int, val []byte, found bool),
	roundTrip func(chunk [][]byte, reply func(j int, val string, err error) error) error) error {
	for start := 0; start < len(keys); start += depth {
		chunk := keys[start:min(start+depth, len(keys))]
		err := roundTrip(chunk, func(j int, val string, err error) error {
			switch {
			case isRedisNil(err):
				fn(start+j, nil, false)
			case err != nil:
				return r.t.classify(&r.counters, "pipelined get", chunk[j], err)
			default:
				fn(start+j, []byte(val), true)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// isRedisNil reports the "no such key" reply of either client.
func isRedisNil(err error) bool { return err == redis.Nil || rueidis.IsRedisNil(err) }

// infoCollector gathers INFO replies of several nodes, possibly asked
// from several goroutines (go-redis's ForEachMaster).
type infoCollector struct {
	mu  sync.Mutex
	out []string
}

func (c *infoCollector) add(addr string, ask func() (string, error)) error {
	s, err := ask()
	if err != nil {
		return fmt.Errorf("INFO on %s: %w", addr, err)
	}
	c.mu.Lock()
	c.out = append(c.out, s)
	c.mu.Unlock()
	return nil
}

// classify counts a failed request and names the servers in the error.
func (t redisTarget) classify(c *opCounters, op string, key []byte, err error) error {
	if t.guard != nil {
		t.guard.failed(err)
	}
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "OOM "):
		c.outOfMemory.Add(1)
	case strings.Contains(msg, "bulk length"):
		c.tooLarge.Add(1)
		return fmt.Errorf("redis %s: %s %q: %w: %w", strings.Join(t.addrs, ","), op, truncKey(key), engine.ErrEntryTooLarge, err)
	default:
		c.errors.Add(1)
	}
	return fmt.Errorf("redis %s: %s %q: %w", strings.Join(t.addrs, ","), op, truncKey(key), err)
}

// redisAdapter drives Redis through go-redis: a Client for one server, a
// ClusterClient for a cluster (it follows MOVED and keeps the slot map).
type redisAdapter struct {
	redisReporter
	c   redis.UniversalClient
	net netSettings
}

func newRedisAdapter(o engine.Options) (engine.Adapter, error) {
	t, ns, err := newRedisTarget(o)
	if err != nil {
		return nil, err
	}
	t.guard = newConnGuard(ns.timeout)
	a := &redisAdapter{redisReporter: redisReporter{t: t}, net: ns}
	a.info = a.infos
	if t.cluster {
		a.c = redis.NewClusterClient(&redis.ClusterOptions{
			Addrs:        t.addrs,
			Dialer:       t.guard.dial,
			PoolSize:     ns.poolSize(),
			DialTimeout:  ns.timeout,
			ReadTimeout:  ns.timeout,
			WriteTimeout: ns.timeout,
			MaxRetries:   -1, // a failure is reported, not hidden by a retry
		})
	} else {
		a.c = redis.NewClient(&redis.Options{
			Addr:         t.addrs[0],
			Dialer:       t.guard.dial,
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
	return a.getReply(dst, key, s, err, err == redis.Nil)
}

// GetBatch implements engine.BatchGetter: GETs pipelined Pipeline at a
// time (a ClusterClient splits each pipeline by node).
func (a *redisAdapter) GetBatch(keys [][]byte, fn func(i int, val []byte, found bool)) error {
	ctx := context.Background()
	cmds := make([]*redis.StringCmd, 0, a.net.pipeline)
	return a.getBatch(keys, a.net.pipeline, fn, func(chunk [][]byte, reply func(j int, val string, err error) error) error {
		cmds = cmds[:0]
		pipe := a.c.Pipeline()
		for _, k := range chunk {
			cmds = append(cmds, pipe.Get(ctx, string(k)))
		}
		if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
			return a.t.classify(&a.counters, "pipelined get", chunk[0], err)
		}
		for j, c := range cmds {
			if err := reply(j, c.Val(), c.Err()); err != nil {
				return err
			}
		}
		return nil
	})
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
	var c infoCollector
	err := a.eachMaster(func(n *redis.Client) error {
		return c.add(n.Options().Addr, n.Info(context.Background(), redisInfoSections...).Result)
	})
	return c.out, err
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
