package netserver

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// RequireBinary is servertest.Require (which this package cannot import:
// it imports netserver).
func RequireBinary(t testing.TB, binary string) {
	t.Helper()
	if _, err := LookBinary(binary); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		t.Skipf("%v", err)
	}
}

func checkStopped(t *testing.T, s *Server) {
	t.Helper()
	if err := s.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if s.Alive() {
		t.Errorf("%s pid %d still alive after Stop", s.Kind, s.PID())
	}
	if err := syscall.Kill(s.PID(), 0); err == nil {
		t.Errorf("%s pid %d still exists after Stop", s.Kind, s.PID())
	}
}

func TestMemcachedStartStop(t *testing.T) {
	RequireBinary(t, "memcached")
	s, err := StartMemcached(context.Background(), MemcachedConfig{LimitBytes: 8 << 20, MaxValueSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if !strings.HasPrefix(s.Addr, "127.0.0.1:") {
		t.Errorf("Addr = %q, want loopback", s.Addr)
	}
	if got := strings.Join(s.Args, " "); !strings.Contains(got, "-m 8 ") || !strings.Contains(got, "-I 2097152") {
		t.Errorf("args %q: want -m 8 and -I 2097152 (1 MiB values need a 2 MiB item limit)", got)
	}
	line, err := roundTrip(context.Background(), s.Addr, "stats settings")
	if err != nil || !strings.HasPrefix(line, "STAT ") {
		t.Errorf("stats settings: %q, %v", line, err)
	}
	rss, err := s.RSS()
	if err != nil || rss <= 0 {
		t.Errorf("RSS = %d, %v", rss, err)
	}
	if Running() < 1 {
		t.Errorf("Running() = %d with a server up", Running())
	}
	checkStopped(t, s)
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestRedisStartStop(t *testing.T) {
	RequireBinary(t, "redis-server")
	s, err := StartRedis(context.Background(), RedisConfig{LimitBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	for cmd, want := range map[string]string{
		"CONFIG GET maxmemory": "16777216", "CONFIG GET maxmemory-policy": "allkeys-lru",
		"CONFIG GET save": "", "CONFIG GET appendonly": "no",
	} {
		// CONFIG GET answers an array; read it through redis-cli-like
		// parsing of the second element.
		got, err := configGet(s.Addr, strings.Fields(cmd)[2])
		if err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", cmd, got, err, want)
		}
	}
	dir := s.dir
	checkStopped(t, s)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("scratch directory %s left behind: %v", dir, err)
	}
}

// configGet reads CONFIG GET name's value with a raw RESP exchange.
func configGet(addr, name string) (string, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := c.Write([]byte("CONFIG GET " + name + "\r\n")); err != nil {
		return "", err
	}
	buf := make([]byte, 4096)
	n, err := c.Read(buf)
	if err != nil {
		return "", err
	}
	// *2 $len name $len value
	parts := strings.Split(string(buf[:n]), "\r\n")
	if len(parts) < 5 {
		return "", errors.New("short reply " + strconv.Quote(string(buf[:n])))
	}
	return parts[4], nil
}

// TestPortInUse hands the launcher a port that is already bound: the
// server fails to bind and is started again on another port.
func TestPortInUse(t *testing.T) {
	RequireBinary(t, "memcached")
	RequireBinary(t, "redis-server")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().(*net.TCPAddr).Port
	for _, start := range []func() (*Server, error){
		func() (*Server, error) {
			return StartMemcached(context.Background(), MemcachedConfig{LimitBytes: 4 << 20})
		},
		func() (*Server, error) { return StartRedis(context.Background(), RedisConfig{LimitBytes: 4 << 20}) },
	} {
		calls := 0
		pickPort = func(bus bool) (int, error) {
			calls++
			if calls == 1 {
				return taken, nil
			}
			return freePort(bus)
		}
		s, err := start()
		pickPort = freePort
		if err != nil {
			t.Fatalf("start with the first port in use: %v", err)
		}
		if calls < 2 || s.Addr == net.JoinHostPort("127.0.0.1", strconv.Itoa(taken)) {
			t.Errorf("%s: %d port picks, addr %s; want a second port", s.Kind, calls, s.Addr)
		}
		checkStopped(t, s)
	}
}

func TestMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	// A server that never started leaves no scratch directory behind.
	scratch := t.TempDir()
	t.Setenv("TMPDIR", scratch)
	for bin, pkg := range map[string]string{"memcached": "memcached", "redis-server": "redis-server"} {
		var err error
		if bin == "memcached" {
			_, err = StartMemcached(context.Background(), MemcachedConfig{LimitBytes: 4 << 20})
		} else {
			_, err = StartRedis(context.Background(), RedisConfig{LimitBytes: 4 << 20})
		}
		var me *MissingBinaryError
		if !errors.Is(err, ErrBinaryMissing) || !errors.As(err, &me) || me.Package != pkg {
			t.Errorf("%s missing: err = %v; want a MissingBinaryError naming package %s", bin, err, pkg)
		} else if !strings.Contains(err.Error(), "apt-get install -y "+pkg) {
			t.Errorf("message %q does not say how to install %s", err, pkg)
		}
	}
	_, err := StartRedisCluster(context.Background(), 3, RedisConfig{LimitBytes: 12 << 20})
	if !errors.Is(err, ErrBinaryMissing) || !strings.Contains(err.Error(), "redis-tools") {
		t.Errorf("cluster without redis-cli: %v; want the redis-tools package named", err)
	}
	if left, _ := os.ReadDir(scratch); len(left) > 0 {
		t.Errorf("failed starts left %d scratch entries behind, e.g. %s", len(left), left[0].Name())
	}
}

func TestMemcachedLimitTooSmall(t *testing.T) {
	RequireBinary(t, "memcached")
	if _, err := StartMemcached(context.Background(), MemcachedConfig{LimitBytes: 2 << 20, MaxValueSize: 1 << 20}); err == nil ||
		!strings.Contains(err.Error(), "twice -I") {
		t.Errorf("2 MiB limit with 1 MiB values: err = %v; want the -m/-I rule explained", err)
	}
}

func TestItemLimit(t *testing.T) {
	for _, c := range []struct {
		v    int
		want int64
	}{{0, 1 << 20}, {1000, 1 << 20}, {1<<20 - 512, 1 << 20}, {1<<20 - 511, 2 << 20}, {1 << 20, 2 << 20}, {3 << 20, 4 << 20}} {
		if got := MemcachedItemLimit(c.v); got != c.want {
			t.Errorf("MemcachedItemLimit(%d) = %d, want %d", c.v, got, c.want)
		}
	}
}

func TestRedisClusterAndMemcachedN(t *testing.T) {
	RequireBinary(t, "redis-server")
	RequireBinary(t, "redis-cli")
	RequireBinary(t, "memcached")
	cl, err := StartRedisCluster(context.Background(), 3, RedisConfig{LimitBytes: 48 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cl.Servers {
		if s.LimitBytes != 16<<20 {
			t.Errorf("node %s limit %d, want 16 MiB (48 MiB over 3)", s.Addr, s.LimitBytes)
		}
		info, err := roundTrip(context.Background(), s.Addr, "CLUSTER INFO")
		if err != nil || !strings.Contains(info, "cluster_slots_assigned:16384") {
			t.Errorf("%s CLUSTER INFO: %v %q", s.Addr, err, info)
		}
	}
	ms, err := StartMemcachedN(context.Background(), 3, MemcachedConfig{LimitBytes: 12 << 20})
	if err != nil {
		_ = cl.Stop()
		t.Fatal(err)
	}
	if err := StopServers(ms); err != nil {
		t.Error(err)
	}
	if err := cl.Stop(); err != nil {
		t.Error(err)
	}
	if n := Running(); n != 0 {
		t.Errorf("%d servers still running after Stop", n)
	}
}

func TestStopAll(t *testing.T) {
	RequireBinary(t, "memcached")
	ms, err := StartMemcachedN(context.Background(), 2, MemcachedConfig{LimitBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	StopAll()
	for _, s := range ms {
		if s.Alive() {
			t.Errorf("%s alive after StopAll", s.Addr)
		}
	}
}
