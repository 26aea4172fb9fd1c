package cli

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/engine/netserver"
)

// netFlags are run's flags for the network adapters (see
// engine.NetworkOptions) and the pass bound they use most.
type netFlags struct {
	memcachedAddr  []string
	flushServers   bool
	redisAddr      string
	redisCluster   []string
	servers        int
	connsPerWorker int
	pipeline       int
	timeout        time.Duration
	duration       time.Duration
}

func (f *netFlags) register(fl *pflag.FlagSet) {
	fl.StringSliceVar(&f.memcachedAddr, "memcached-addr", nil, "memcached servers host:port[,host:port...] (several shard keys) (emptied before each repetition: needs --flush-servers). Default: cachebench starts memcached on loopback with the budget as -m")
	fl.StringVar(&f.redisAddr, "redis-addr", "", "Redis server host:port for redis and redis-rueidis (emptied before each repetition: needs --flush-servers). Default: cachebench starts redis-server with maxmemory = budget")
	fl.StringSliceVar(&f.redisCluster, "redis-cluster", nil, "Redis Cluster nodes host:port,... (emptied before each repetition: needs --flush-servers)")
	fl.BoolVar(&f.flushServers, "flush-servers", false, "confirm that servers given by --memcached-addr, --redis-addr or --redis-cluster may be emptied (flush_all / FLUSHALL) before each repetition; required with those flags")
	fl.IntVar(&f.servers, "servers", 1, "servers cachebench starts per network adapter when no address is given: memcached shards; 3 or more make a Redis Cluster")
	fl.IntVar(&f.connsPerWorker, "conns-per-worker", 1, "network adapters: connections per worker, each a goroutine with one request in flight (memtier's clients per thread)")
	fl.IntVar(&f.pipeline, "pipeline", 1, "Redis: GETs per round trip in the batched lookup phase")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Second, "network adapters: timeout of each request")
	fl.DurationVar(&f.duration, "duration", 0, "bound each get-or-set and mixed pass, and with --rate every open-loop pass, to this wall time (0: run every operation)")
}

// network checks the network adapters' flags and returns their options.
// A network adapter that would start its own server needs the binary on
// PATH: its absence is a usage error (exit 2) naming the Debian package,
// found before anything is generated or measured.
func (f *netFlags) network(factories []engine.Factory) (engine.NetworkOptions, error) {
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
	case !f.flushServers && (len(f.memcachedAddr) > 0 || f.redisAddr != "" || len(f.redisCluster) > 0):
		// A server given by address is emptied before every repetition, so
		// that the previous one's items do not count as hits; that must
		// never happen to a server holding data nobody meant to lose.
		return n, usageErrorf("servers given by address are emptied (flush_all / FLUSHALL) before each repetition: pass --flush-servers to confirm they hold nothing you need")
	}
	// An address that cannot be one is a usage error now, not a failed
	// adapter after the rest of the run.
	addrs := map[string][]string{"--memcached-addr": f.memcachedAddr, "--redis-cluster": f.redisCluster}
	if f.redisAddr != "" {
		addrs["--redis-addr"] = []string{f.redisAddr}
	}
	for _, flag := range []string{"--memcached-addr", "--redis-addr", "--redis-cluster"} {
		for _, a := range addrs[flag] {
			if err := checkAddr(a); err != nil {
				return n, usageErrorf("%s %q: %w", flag, a, err)
			}
		}
	}
	// An address for an adapter the run does not select would be ignored
	// without a word: the user meant to measure that server.
	selected := map[string]bool{}
	for _, fac := range factories {
		selected[fac.Name] = true
	}
	if len(f.memcachedAddr) > 0 && !selected["memcached"] {
		return n, usageErrorf("--memcached-addr is for the memcached adapter, which --adapters does not select")
	}
	for flag, given := range map[string]bool{"--redis-addr": f.redisAddr != "", "--redis-cluster": len(f.redisCluster) > 0} {
		if given && !selected["redis"] && !selected["redis-rueidis"] {
			return n, usageErrorf("%s is for the redis and redis-rueidis adapters, which --adapters does not select", flag)
		}
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

// checkAddr accepts host:port with a port in 1..65535 and a host without
// spaces (a name, an IPv4 or a bracketed IPv6 address).
func checkAddr(a string) error {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("want host:port: %w", err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("port %q is not in 1..65535", port)
	}
	if host == "" || strings.ContainsAny(host, " \t/") {
		return fmt.Errorf("host %q is not a host name or address", host)
	}
	return nil
}
