package adapters

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/engine/netserver"
	"github.com/cachebench/cachebench/internal/engine/netserver/servertest"
)

// These tests run against real memcached and Redis servers started on
// loopback; they skip only when a binary is missing outside CI.

var networkAdapters = []string{"memcached", "redis", "redis-rueidis"}

func netOptions(mem int64, maxVal int, n engine.NetworkOptions) engine.Options {
	n.Timeout = 2 * time.Second
	return engine.Options{Entries: 1000, MemoryBytes: mem, MaxValueSize: maxVal, Network: n}
}

func newNet(t *testing.T, name string, o engine.Options) engine.Adapter {
	t.Helper()
	f, err := engine.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	a, err := f.New(o)
	if err != nil {
		t.Fatalf("%s: New: %v", name, err)
	}
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Errorf("%s: Close: %v", name, err)
		}
	})
	return a
}

// netValue is value i: its index, then filler up to size bytes.
func netValue(i, size int) []byte {
	v := fmt.Appendf(nil, "%d:", i)
	for len(v) < size {
		v = append(v, byte('a'+(i+len(v))%26))
	}
	return v
}

// shortWorkload sets n keys with values up to maxVal bytes, then reads
// every key back from four goroutines and checks every value; the budget
// holds them all, so a miss is an error too.
func shortWorkload(t *testing.T, a engine.Adapter, n, maxVal int) [][]byte {
	t.Helper()
	keys := make([][]byte, n)
	vals := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "nk-%06d", i)
		vals[i] = netValue(i, (i*7919)%maxVal)
		if err := a.Set(keys[i], vals[i]); err != nil {
			t.Fatalf("%s: Set(%s): %v", a.Name(), keys[i], err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var dst []byte
			for j := range keys {
				i := (j + w*n/4) % n
				out, ok, err := a.Get(dst[:0], keys[i])
				switch {
				case err != nil:
					errs <- err
					return
				case !ok:
					errs <- fmt.Errorf("%s: %s missing", a.Name(), keys[i])
					return
				case !bytes.Equal(out, vals[i]):
					errs <- fmt.Errorf("%s: WRONG VALUE for %s (%d bytes, want %d)", a.Name(), keys[i], len(out), len(vals[i]))
					return
				}
				dst = out
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	return keys
}

func TestNetworkShardedMemcached(t *testing.T) {
	servertest.Require(t, "memcached")
	servers, err := netserver.StartMemcachedN(context.Background(), 3, netserver.MemcachedConfig{LimitBytes: 96 << 20, MaxValueSize: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer netserver.StopServers(servers)
	var addrs []string
	for _, s := range servers {
		addrs = append(addrs, s.Addr)
		// A stale item the adapter must flush.
		if _, err := textCommand(s.Addr, "set nk-000001 0 0 5\r\nstale", time.Second, func(string) bool { return true }); err != nil {
			t.Fatal(err)
		}
	}
	a := newNet(t, "memcached", netOptions(96<<20, 256<<10, engine.NetworkOptions{MemcachedAddrs: addrs}))
	shortWorkload(t, a, 300, 256<<10)
	for _, addr := range addrs {
		st, err := memcachedStats(addr, "stats", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if n := atoi64(st["curr_items"]); n < 50 {
			t.Errorf("memcached %s holds %d of 300 keys; want them spread over all three", addr, n)
		}
	}
	fp, err := a.(engine.Footprinter).Footprint()
	if err != nil || fp.Items != 300 || fp.LimitBytes != 96<<20 || fp.RSSBytes != 0 {
		t.Errorf("Footprint = %+v, %v; want 300 items, a 96 MiB limit, no RSS (servers not ours)", fp, err)
	}
}

func TestNetworkRedisCluster(t *testing.T) {
	servertest.Require(t, "redis-server", "redis-cli")
	cl, err := netserver.StartRedisCluster(context.Background(), 3, netserver.RedisConfig{LimitBytes: 96 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Stop()
	for _, name := range []string{"redis", "redis-rueidis"} {
		t.Run(name, func(t *testing.T) {
			a := newNet(t, name, netOptions(96<<20, 128<<10, engine.NetworkOptions{RedisCluster: cl.Addrs(), Pipeline: 16}))
			keys := shortWorkload(t, a, 300, 128<<10)
			for _, s := range cl.Servers {
				n, err := redisDBSize(s.Addr)
				if err != nil {
					t.Fatal(err)
				}
				if n < 50 {
					t.Errorf("cluster node %s holds %d of 300 keys; want them on every master", s.Addr, n)
				}
			}
			// Pipelined lookups across slots.
			found := 0
			err := a.(engine.BatchGetter).GetBatch(keys[:100], func(i int, val []byte, ok bool) {
				if ok && bytes.Equal(val, netValue(i, (i*7919)%(128<<10))) {
					found++
				}
			})
			if err != nil || found != 100 {
				t.Errorf("GetBatch: %d of 100 right, %v", found, err)
			}
			fp, err := a.(engine.Footprinter).Footprint()
			if err != nil || fp.Items != 300 || fp.LimitBytes != 96<<20 || fp.HeldBytes <= 0 {
				t.Errorf("Footprint = %+v, %v; want 300 items over a 96 MiB limit", fp, err)
			}
		})
	}
}

// redisDBSize asks addr for DBSIZE (an integer reply ":N").
func redisDBSize(addr string) (int64, error) {
	reply, err := textCommandLast(addr, "DBSIZE")
	if err != nil {
		return 0, err
	}
	return atoi64(strings.TrimPrefix(reply, ":")), nil
}

func textCommandLast(addr, cmd string) (string, error) {
	var last string
	_, err := textCommand(addr, cmd, time.Second, func(l string) bool { last = l; return true })
	return last, err
}

// TestNetworkOwnServers runs the short workload against servers the
// adapters start themselves: three memcached shards and a three-master
// cluster (Options.Network.Servers = 3), then one server each.
func TestNetworkOwnServers(t *testing.T) {
	servertest.Require(t, "memcached", "redis-server", "redis-cli")
	for _, name := range networkAdapters {
		for _, servers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s-%d", name, servers), func(t *testing.T) {
				a := newNet(t, name, netOptions(96<<20, 64<<10, engine.NetworkOptions{Servers: servers}))
				shortWorkload(t, a, 200, 64<<10)
				fp, err := a.(engine.Footprinter).Footprint()
				if err != nil || fp.RSSBytes <= 0 || fp.Items != 200 {
					t.Errorf("Footprint = %+v, %v; want 200 items and the servers' RSS", fp, err)
				}
				if lim := fp.LimitBytes; lim < 95<<20 || lim > 96<<20 {
					t.Errorf("limit %d, want the 96 MiB budget", lim)
				}
				t.Logf("%s: %+v", name, fp)
			})
		}
	}
}

func TestNetworkUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close() // nothing listens there now: connection refused
	cases := map[string]engine.NetworkOptions{
		"memcached":     {MemcachedAddrs: []string{dead}},
		"redis":         {RedisAddr: dead},
		"redis-rueidis": {RedisAddr: dead},
	}
	for name, n := range cases {
		f, _ := engine.Lookup(name)
		_, err := f.New(netOptions(16<<20, 1024, n))
		if err == nil || !strings.Contains(err.Error(), dead) {
			t.Errorf("%s at a closed port: err = %v; want an error naming %s", name, err, dead)
		}
	}
	f, _ := engine.Lookup("redis")
	if _, err := f.New(netOptions(16<<20, 1024, engine.NetworkOptions{RedisCluster: []string{dead}})); err == nil || !strings.Contains(err.Error(), dead) {
		t.Errorf("cluster seed at a closed port: err = %v", err)
	}
	if _, err := f.New(netOptions(16<<20, 1024, engine.NetworkOptions{RedisAddr: "no-port"})); err == nil || !strings.Contains(err.Error(), "no-port") {
		t.Errorf("address without port: err = %v", err)
	}
}

// TestNetworkServerKilled kills the server under an adapter: every later
// request must fail with an error naming the address, and be counted.
func TestNetworkServerKilled(t *testing.T) {
	servertest.Require(t, "memcached", "redis-server")
	for _, name := range networkAdapters {
		t.Run(name, func(t *testing.T) {
			a := newNet(t, name, netOptions(16<<20, 1024, engine.NetworkOptions{}))
			if err := a.Set([]byte("k"), []byte("v")); err != nil {
				t.Fatal(err)
			}
			var owned ownedServers
			switch x := a.(type) {
			case *memcachedAdapter:
				owned = x.owned
			case *redisAdapter:
				owned = x.t.owned
			case *rueidisAdapter:
				owned = x.t.owned
			}
			addr := owned[0].Addr
			if err := owned[0].Kill(); err != nil {
				t.Fatal(err)
			}
			for owned[0].Alive() {
				time.Sleep(time.Millisecond)
			}
			_, _, gerr := a.Get(nil, []byte("k"))
			serr := a.Set([]byte("k2"), []byte("v"))
			for op, err := range map[string]error{"Get": gerr, "Set": serr} {
				if err == nil || !strings.Contains(err.Error(), addr) {
					t.Errorf("%s after the server died: %v; want an error naming %s", op, err, addr)
				}
			}
			if st := a.(engine.Statser).Stats(); st["request_errors"] < 2 || st["stats_unavailable"] != 1 {
				t.Errorf("stats after the server died: %v; want request_errors >= 2 and stats_unavailable", st)
			}
		})
	}
}

// TestNetworkTooLarge: a value over the server's limit is refused with an
// error and counted, never dropped silently.
func TestNetworkTooLarge(t *testing.T) {
	servertest.Require(t, "memcached", "redis-server")
	big := bytes.Repeat([]byte("x"), 10<<20)
	for _, name := range networkAdapters {
		t.Run(name, func(t *testing.T) {
			// 1 KiB values planned: memcached's item limit stays 1 MiB;
			// Redis gets 8 MiB of maxmemory, less than the value.
			a := newNet(t, name, netOptions(8<<20, 1024, engine.NetworkOptions{}))
			err := a.Set([]byte("big"), big)
			if err == nil {
				t.Fatalf("a 10 MiB value was accepted by a server limited to 8 MiB")
			}
			st := a.(engine.Statser).Stats()
			if st["rejected_too_large"]+st["rejected_out_of_memory"] != 1 {
				t.Errorf("Set error %v, stats %v: want the refusal counted", err, st)
			}
			if name == "memcached" && !errors.Is(err, engine.ErrEntryTooLarge) {
				t.Errorf("memcached: %v; want engine.ErrEntryTooLarge", err)
			}
			// The adapter still works after the refusal (Redis counts the
			// refused command's query buffer in used_memory until its
			// client cron shrinks it, so allow it a moment).
			deadline := time.Now().Add(3 * time.Second)
			for err = a.Set([]byte("small"), []byte("ok")); err != nil && time.Now().Before(deadline); err = a.Set([]byte("small"), []byte("ok")) {
				time.Sleep(50 * time.Millisecond)
			}
			if err != nil {
				t.Errorf("Set after a refusal: %v", err)
			}
			if out, ok, err := a.Get(nil, []byte("small")); err != nil || !ok || string(out) != "ok" {
				t.Errorf("Get after a refusal: %q %v %v", out, ok, err)
			}
		})
	}
}

func TestNetworkMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, name := range networkAdapters {
		f, _ := engine.Lookup(name)
		_, err := f.New(netOptions(16<<20, 1024, engine.NetworkOptions{}))
		if !errors.Is(err, netserver.ErrBinaryMissing) {
			t.Errorf("%s without its server binary: %v; want ErrBinaryMissing", name, err)
		}
	}
}

func TestNetworkExclusiveRedisFlags(t *testing.T) {
	f, _ := engine.Lookup("redis")
	_, err := f.New(netOptions(16<<20, 1024, engine.NetworkOptions{RedisAddr: "127.0.0.1:1", RedisCluster: []string{"127.0.0.1:2"}}))
	if err == nil || !strings.Contains(err.Error(), "exclusive") {
		t.Errorf("both --redis-addr and --redis-cluster: %v", err)
	}
}
