package netserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// MemcachedConfig configures a memcached started by StartMemcached.
type MemcachedConfig struct {
	// LimitBytes is the cache memory limit (-m, rounded down to whole MiB,
	// the unit memcached takes).
	LimitBytes int64
	// MaxValueSize is the largest value the run will store; -I (the item
	// size limit, 1 MiB by default) is raised to fit it with its key and
	// item header.
	MaxValueSize int
	// Threads is memcached's -t (0: memcached's default of 4).
	Threads int
}

// memcachedItemOverhead covers a key (at most 250 bytes) and the item
// header (about 50 bytes with CAS) on top of the value.
const memcachedItemOverhead = 512

// MemcachedItemLimit returns the -I value used for values up to
// maxValue bytes: the value plus key and header, rounded up to a whole
// MiB, at least memcached's default of 1 MiB.
func MemcachedItemLimit(maxValue int) int64 {
	need := int64(maxValue) + memcachedItemOverhead
	const mib = 1 << 20
	return max(1, (need+mib-1)/mib) * mib
}

// MemcachedMemoryMiB returns the -m value (MiB) for a limit in bytes,
// rounded down so that memcached never gets more than the budget (but at
// least 1 MiB).
func MemcachedMemoryMiB(limit int64) int64 {
	return max(1, limit>>20)
}

// StartMemcached starts one memcached on a free loopback port.
func StartMemcached(ctx context.Context, c MemcachedConfig) (*Server, error) {
	if c.LimitBytes <= 0 {
		return nil, fmt.Errorf("memcached: memory limit must be positive, got %d", c.LimitBytes)
	}
	mb := MemcachedMemoryMiB(c.LimitBytes)
	item := MemcachedItemLimit(c.MaxValueSize)
	// memcached refuses an item size limit above half its memory.
	if item > mb<<20/2 {
		return nil, fmt.Errorf("memcached: a memory limit of %d MiB cannot hold items of %d bytes (memcached needs -m of at least twice -I = %d MiB)",
			mb, item, item>>19)
	}
	args := func(port int) []string {
		a := []string{"-l", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "0",
			"-m", strconv.FormatInt(mb, 10), "-I", strconv.FormatInt(item, 10)}
		if c.Threads > 0 {
			a = append(a, "-t", strconv.Itoa(c.Threads))
		}
		if os.Geteuid() == 0 { // memcached will not run as root without -u
			a = append(a, "-u", "root")
		}
		return a
	}
	probe := func(ctx context.Context, addr string) error {
		line, err := roundTrip(ctx, addr, "version")
		if err != nil {
			return err
		}
		if !strings.HasPrefix(line, "VERSION ") {
			return fmt.Errorf("memcached on %s answered %q to version", addr, line)
		}
		return nil
	}
	s, err := launch(ctx, "memcached", "memcached", mb<<20, "", false, args, probe)
	if err != nil {
		return nil, fmt.Errorf("start memcached: %w", err)
	}
	return s, nil
}

// StartMemcachedN starts n memcached servers with the limit split evenly
// (each gets LimitBytes/n), as a sharded deployment of the same total size.
func StartMemcachedN(ctx context.Context, n int, c MemcachedConfig) ([]*Server, error) {
	if n <= 0 {
		return nil, fmt.Errorf("memcached: server count must be positive, got %d", n)
	}
	each := c
	each.LimitBytes = c.LimitBytes / int64(n)
	var out []*Server
	for i := 0; i < n; i++ {
		s, err := StartMemcached(ctx, each)
		if err != nil {
			_ = StopServers(out)
			return nil, fmt.Errorf("memcached %d of %d: %w", i+1, n, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// RedisConfig configures a redis-server started by StartRedis.
type RedisConfig struct {
	// LimitBytes is maxmemory; the policy is allkeys-lru.
	LimitBytes int64
	// Cluster starts the server with cluster-enabled yes (see
	// StartRedisCluster).
	Cluster bool
}

// StartRedis starts one redis-server on a free loopback port with
// persistence off (no RDB snapshots, no AOF).
func StartRedis(ctx context.Context, c RedisConfig) (*Server, error) {
	if c.LimitBytes <= 0 {
		return nil, fmt.Errorf("redis: memory limit must be positive, got %d", c.LimitBytes)
	}
	dir, err := os.MkdirTemp("", "cachebench-redis-")
	if err != nil {
		return nil, fmt.Errorf("redis: scratch directory: %w", err)
	}
	args := func(port int) []string {
		a := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no",
			"--maxmemory", strconv.FormatInt(c.LimitBytes, 10), "--maxmemory-policy", "allkeys-lru",
			"--daemonize", "no", "--dir", dir, "--logfile", "", "--loglevel", "warning"}
		if c.Cluster {
			a = append(a, "--cluster-enabled", "yes", "--cluster-config-file", "nodes-"+strconv.Itoa(port)+".conf",
				"--cluster-node-timeout", "3000")
		}
		return a
	}
	probe := func(ctx context.Context, addr string) error {
		line, err := roundTrip(ctx, addr, "PING")
		if err != nil {
			return err
		}
		if line != "+PONG" {
			return fmt.Errorf("redis on %s answered %q to PING", addr, line)
		}
		return nil
	}
	s, err := launch(ctx, "redis", "redis-server", c.LimitBytes, dir, c.Cluster, args, probe)
	if err != nil {
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	return s, nil
}

// Cluster is a Redis Cluster of masters only, started by StartRedisCluster.
type Cluster struct {
	Servers []*Server
}

// Addrs returns the masters' addresses.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		out[i] = s.Addr
	}
	return out
}

// Stop stops every node.
func (c *Cluster) Stop() error { return StopServers(c.Servers) }

// StartRedisCluster starts masters cluster-enabled redis-servers on
// loopback, each with LimitBytes/masters of maxmemory, joins them with
// `redis-cli --cluster create` (no replicas) and waits until every node
// reports cluster_state:ok.
func StartRedisCluster(ctx context.Context, masters int, c RedisConfig) (*Cluster, error) {
	if masters < 3 {
		return nil, fmt.Errorf("redis cluster: needs at least 3 masters, got %d", masters)
	}
	cli, err := LookBinary("redis-cli")
	if err != nil {
		return nil, err
	}
	each := RedisConfig{LimitBytes: c.LimitBytes / int64(masters), Cluster: true}
	cl := &Cluster{}
	for i := 0; i < masters; i++ {
		s, err := StartRedis(ctx, each)
		if err != nil {
			_ = cl.Stop()
			return nil, fmt.Errorf("redis cluster node %d of %d: %w", i+1, masters, err)
		}
		cl.Servers = append(cl.Servers, s)
	}
	args := append([]string{"--cluster", "create"}, cl.Addrs()...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(cctx, cli, args...).CombinedOutput()
	if err != nil {
		_ = cl.Stop()
		return nil, fmt.Errorf("redis-cli %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	if err := waitClusterOK(cctx, cl); err != nil {
		_ = cl.Stop()
		return nil, err
	}
	return cl, nil
}

// waitClusterOK polls CLUSTER INFO on every node until each reports
// cluster_state:ok and knows every other node.
func waitClusterOK(ctx context.Context, cl *Cluster) error {
	want := "cluster_known_nodes:" + strconv.Itoa(len(cl.Servers))
	for _, s := range cl.Servers {
		for {
			info, err := roundTrip(ctx, s.Addr, "CLUSTER INFO")
			if err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, want) {
				break
			}
			select {
			case <-ctx.Done():
				if err == nil {
					err = errors.New(strings.ReplaceAll(info, "\r\n", " "))
				}
				return fmt.Errorf("redis cluster node %s not ready: %w (last: %v)", s.Addr, ctx.Err(), err)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return nil
}
