package adapters

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/engine/netserver"
)

// Shared pieces of the network adapters (memcached.go, redis.go,
// rueidis.go). They never appear in the memory, file or all groups: a
// network adapter must be named (or its group, "network").

// defaultNetTimeout bounds a request when Options.Network.Timeout is 0.
const defaultNetTimeout = 5 * time.Second

// netSettings are the resolved knobs of engine.NetworkOptions.
type netSettings struct {
	workers, connsPerWorker, pipeline int
	timeout                           time.Duration
}

func resolveNet(n engine.NetworkOptions) netSettings {
	s := netSettings{workers: n.Workers, connsPerWorker: n.ConnsPerWorker, pipeline: n.Pipeline, timeout: n.Timeout}
	if s.workers <= 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	s.connsPerWorker = max(s.connsPerWorker, 1)
	s.pipeline = max(s.pipeline, 1)
	if s.timeout <= 0 {
		s.timeout = defaultNetTimeout
	}
	return s
}

// poolSize is the number of connections per server.
func (s netSettings) poolSize() int { return s.workers * s.connsPerWorker }

func (s netSettings) config(m map[string]string) {
	m["workers"] = itoa(s.workers)
	m["conns_per_worker"] = itoa(s.connsPerWorker)
	m["request_timeout"] = s.timeout.String()
}

// ownedServers are the servers an adapter started itself; it stops them
// at Close and reads their RSS.
type ownedServers []*netserver.Server

func (o ownedServers) stop() error { return netserver.StopServers(o) }

// rss sums the servers' resident memory (0 when cachebench started none).
func (o ownedServers) rss() (int64, error) {
	var sum int64
	for _, s := range o {
		r, err := s.RSS()
		if err != nil {
			return 0, fmt.Errorf("%s %s: %w", s.Kind, s.Addr, err)
		}
		sum += r
	}
	return sum, nil
}

func (o ownedServers) describe() string {
	var parts []string
	for _, s := range o {
		parts = append(parts, fmt.Sprintf("pid %d on %s: %s", s.PID(), s.Addr, strings.Join(quoteArgs(s.Args), " ")))
	}
	return strings.Join(parts, "; ")
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" {
			a = `""`
		}
		out[i] = a
	}
	return out
}

// opCounters counts what a network adapter refused or failed, so that
// nothing is dropped silently: the runner sees the error, Stats shows the
// count.
type opCounters struct {
	tooLarge    atomic.Uint64 // the server refused the item: over its item limit
	outOfMemory atomic.Uint64 // the server refused a write for want of memory
	errors      atomic.Uint64 // any other failed request
}

func (c *opCounters) stats(m map[string]uint64) {
	m["rejected_too_large"] = c.tooLarge.Load()
	m["rejected_out_of_memory"] = c.outOfMemory.Load()
	m["request_errors"] = c.errors.Load()
}

// checkAddrs validates host:port addresses given on the command line.
func checkAddrs(flag string, addrs []string) error {
	if len(addrs) == 0 {
		return fmt.Errorf("%s: no address", flag)
	}
	for _, a := range addrs {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return fmt.Errorf("%s %q: want host:port: %w", flag, a, err)
		}
	}
	return nil
}

// textCommand sends one line of a text protocol (memcached) to addr on a
// fresh connection and returns the reply lines up to (not including) the
// line end reports as the last; used for stats and probes, never on the
// measured path.
func textCommand(addr, cmd string, timeout time.Duration, end func(line string) bool) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write([]byte(cmd + "\r\n")); err != nil {
		return nil, fmt.Errorf("send %q: %w", cmd, err)
	}
	r := bufio.NewReader(c)
	var lines []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("read reply to %q: %w", cmd, err)
		}
		line = strings.TrimRight(line, "\r\n")
		if end(line) {
			if strings.Contains(line, "ERROR") {
				return lines, fmt.Errorf("%q: %s", cmd, line)
			}
			return lines, nil
		}
		lines = append(lines, line)
	}
}

// parseInfo parses "key:value" lines of Redis INFO (or "STAT key value"
// of memcached after the prefix is cut) into a map.
func parseInfo(text string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m
}

func atoi64(s string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n
}
