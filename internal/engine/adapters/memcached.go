package adapters

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/engine/netserver"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "memcached",
		ByteBudget:  true,
		Kind:        engine.Network,
		Description: "memcached over loopback (bradfitz/gomemcache); --memcached-addr a,b,c shards keys over servers, else cachebench starts one with the budget as -m",
		New:         newMemcachedAdapter,
	})
}

// memcachedMaxKey is memcached's key length limit.
const memcachedMaxKey = 250

// memcachedAdapter drives one or more memcached servers through
// gomemcache. Several addresses shard keys with gomemcache's ServerList
// (CRC32 of the key modulo the server count).
type memcachedAdapter struct {
	c        *memcache.Client
	ss       *memcache.ServerList
	addrs    []string
	owned    ownedServers
	net      netSettings
	limit    int64 // sum of the servers' limit_maxbytes
	itemMax  int64 // smallest item_size_max of the servers
	counters opCounters
	// connGuard dials the client's connections and closes them on
	// Interrupt or once the server stops answering (engine.Interrupter).
	*connGuard
}

func newMemcachedAdapter(o engine.Options) (engine.Adapter, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	a := &memcachedAdapter{net: resolveNet(o.Network), addrs: o.Network.MemcachedAddrs}
	a.connGuard = newConnGuard(a.net.timeout)
	external := len(a.addrs) > 0
	if external {
		if err := checkAddrs("--memcached-addr", a.addrs); err != nil {
			return nil, err
		}
	} else {
		servers, err := netserver.StartMemcachedN(context.Background(), max(1, o.Network.Servers),
			netserver.MemcachedConfig{LimitBytes: o.MemoryBytes, MaxValueSize: o.MaxValueSize})
		if err != nil {
			return nil, err
		}
		a.owned = servers
		for _, s := range servers {
			a.addrs = append(a.addrs, s.Addr)
		}
	}
	fail := func(err error) (engine.Adapter, error) {
		_ = a.owned.stop()
		return nil, err
	}
	// Each server is asked for its settings on its own, so that an
	// unreachable one is named in the error.
	for _, addr := range a.addrs {
		st, err := memcachedStats(addr, "stats settings", a.net.timeout)
		if err != nil {
			return fail(fmt.Errorf("memcached at %s: %w", addr, err))
		}
		a.limit += atoi64(st["maxbytes"])
		if im := atoi64(st["item_size_max"]); a.itemMax == 0 || im < a.itemMax {
			a.itemMax = im
		}
		if external {
			// Every repetition starts from an empty server, as one that
			// cachebench starts does; otherwise the previous run's items
			// would count as hits.
			if _, err := textCommand(addr, "flush_all", a.net.timeout, func(l string) bool { return true }); err != nil {
				return fail(fmt.Errorf("memcached at %s: flush_all: %w", addr, err))
			}
		}
	}
	a.ss = new(memcache.ServerList)
	if err := a.ss.SetServers(a.addrs...); err != nil {
		return fail(fmt.Errorf("memcached servers %s: %w", strings.Join(a.addrs, ","), err))
	}
	a.c = memcache.NewFromSelector(a.ss)
	a.c.Timeout = a.net.timeout
	a.c.DialContext = a.dial
	a.c.MaxIdleConns = a.net.poolSize()
	return a, nil
}

// memcachedStats runs a stats command and returns its STAT lines as a map.
func memcachedStats(addr, cmd string, timeout time.Duration) (map[string]string, error) {
	lines, err := textCommand(addr, cmd, timeout, func(l string) bool { return l == "END" || strings.Contains(l, "ERROR") })
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(lines))
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) >= 3 && f[0] == "STAT" {
			m[f[1]] = f[2]
		}
	}
	return m, nil
}

func (a *memcachedAdapter) Name() string { return "memcached" }

// keyError checks what gomemcache would refuse as ErrMalformedKey, plus
// the empty key, which it would send and memcached answer with ERROR.
func memcachedKeyError(key []byte) error {
	if len(key) == 0 || len(key) > memcachedMaxKey {
		return fmt.Errorf("memcached: key of %d bytes: %w (keys are 1 to %d bytes)", len(key), engine.ErrEntryTooLarge, memcachedMaxKey)
	}
	for _, c := range key {
		if c <= ' ' || c == 0x7f {
			return fmt.Errorf("memcached: key %q: %w", truncKey(key), memcache.ErrMalformedKey)
		}
	}
	return nil
}

// wrap names the server that owns key and counts the failure.
func (a *memcachedAdapter) wrap(op string, key []byte, err error) error {
	a.failed(err)
	addr := "?"
	if s, perr := a.ss.PickServer(unsafeString(key)); perr == nil {
		addr = s.String()
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "object too large"):
		a.counters.tooLarge.Add(1)
		return fmt.Errorf("memcached %s: %s %q: %w (item limit -I %d bytes): %w", addr, op, truncKey(key), engine.ErrEntryTooLarge, a.itemMax, err)
	case strings.Contains(msg, "out of memory"):
		a.counters.outOfMemory.Add(1)
	default:
		a.counters.errors.Add(1)
	}
	return fmt.Errorf("memcached %s: %s %q: %w", addr, op, truncKey(key), err)
}

// Set sends the value as is (gomemcache writes it to the connection and
// does not keep it). The key string aliases key: gomemcache only formats
// it into the request.
func (a *memcachedAdapter) Set(key, val []byte) error {
	if err := memcachedKeyError(key); err != nil {
		a.counters.tooLarge.Add(1)
		return err
	}
	if err := a.c.Set(&memcache.Item{Key: unsafeString(key), Value: val}); err != nil {
		return a.wrap("set", key, err)
	}
	return nil
}

// Get appends the value. gomemcache allocates each value it reads; with
// an empty dst that slice is returned as is, so a large value is not
// copied a second time.
func (a *memcachedAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	if err := memcachedKeyError(key); err != nil {
		return dst, false, nil // such a key can never have been stored
	}
	it, err := a.c.Get(unsafeString(key))
	if errors.Is(err, memcache.ErrCacheMiss) {
		return dst, false, nil
	}
	if err != nil {
		return dst, false, a.wrap("get", key, err)
	}
	if len(dst) == 0 {
		return it.Value, true, nil
	}
	return append(dst, it.Value...), true, nil
}

// Delete implements engine.Deleter.
func (a *memcachedAdapter) Delete(key []byte) (bool, error) {
	if memcachedKeyError(key) != nil {
		return false, nil
	}
	err := a.c.Delete(unsafeString(key))
	if errors.Is(err, memcache.ErrCacheMiss) {
		return false, nil
	}
	if err != nil {
		return false, a.wrap("delete", key, err)
	}
	return true, nil
}

// serverStats sums the numeric general stats of every server.
func (a *memcachedAdapter) serverStats() (map[string]int64, error) {
	sum := map[string]int64{}
	for _, addr := range a.addrs {
		st, err := memcachedStats(addr, "stats", a.net.timeout)
		if err != nil {
			return nil, fmt.Errorf("memcached at %s: stats: %w", addr, err)
		}
		for _, k := range []string{"bytes", "curr_items", "evictions", "limit_maxbytes", "get_hits", "get_misses", "total_items", "curr_connections"} {
			sum[k] += atoi64(st[k])
		}
	}
	return sum, nil
}

// Footprint implements engine.Footprinter: memcached's "bytes" (the
// memory its items take, headers included) against limit_maxbytes.
func (a *memcachedAdapter) Footprint() (engine.Footprint, error) {
	st, err := a.serverStats()
	if err != nil {
		return engine.Footprint{}, err
	}
	rss, err := a.owned.rss()
	if err != nil {
		return engine.Footprint{}, err
	}
	return engine.Footprint{
		HeldBytes:  st["bytes"],
		Items:      st["curr_items"],
		LimitBytes: st["limit_maxbytes"],
		RSSBytes:   rss,
		Source:     "memcached stats: bytes, curr_items, limit_maxbytes (summed over servers)",
	}, nil
}

// Len implements engine.Lener with curr_items summed over the servers
// (0 when a server cannot be asked).
func (a *memcachedAdapter) Len() int {
	st, err := a.serverStats()
	if err != nil {
		return 0
	}
	return int(st["curr_items"])
}

// Stats implements engine.Statser: the servers' counters and the
// adapter's own count of refused and failed requests.
func (a *memcachedAdapter) Stats() map[string]uint64 {
	m := map[string]uint64{"servers": uint64(len(a.addrs))}
	a.counters.stats(m)
	if st, err := a.serverStats(); err == nil {
		for k, v := range st {
			m[k] = nonNeg(v)
		}
	} else {
		m["stats_unavailable"] = 1
	}
	if rss, err := a.owned.rss(); err == nil && len(a.owned) > 0 {
		m["server_rss_bytes"] = nonNeg(rss)
	}
	return m
}

// Config implements engine.Configurer.
func (a *memcachedAdapter) Config() map[string]string {
	m := map[string]string{
		"client":         "github.com/bradfitz/gomemcache (text protocol, one request per round trip)",
		"servers":        strings.Join(a.addrs, ","),
		"selector":       "gomemcache ServerList: crc32(key) mod servers",
		"limit_bytes":    i64toa(a.limit) + " (sum of the servers' -m)",
		"item_size_max":  i64toa(a.itemMax) + " (-I; a larger item is refused by the server and counted in rejected_too_large)",
		"max_idle_conns": itoa(a.net.poolSize()) + " per server (workers × conns_per_worker)",
		"budget":         "Options.MemoryBytes as the memory limit (-m) of the servers cachebench starts, split evenly between them",
		"expiry":         "none (items set with expiration 0)",
	}
	if len(a.owned) > 0 {
		m["started_by_cachebench"] = a.owned.describe()
	} else {
		m["started_by_cachebench"] = "no: given by --memcached-addr, flushed (flush_all) when the adapter is created"
	}
	a.net.config(m)
	return m
}

// Close closes the client's connections and stops the servers it started.
func (a *memcachedAdapter) Close() error {
	cerr := a.c.Close()
	serr := a.owned.stop()
	a.owned = nil
	if serr != nil {
		return serr
	}
	if cerr != nil {
		return fmt.Errorf("memcached client close: %w", cerr)
	}
	return nil
}
