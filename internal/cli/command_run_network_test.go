package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/engine/netserver"
	"github.com/cachebench/cachebench/internal/engine/netserver/servertest"
	"github.com/cachebench/cachebench/internal/report"
)

func TestRunNetworkBadInputExitsTwo(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--adapters", "redis", "--conns-per-worker", "0"}, "--conns-per-worker"},
		{[]string{"run", "--adapters", "redis", "--pipeline", "0"}, "--pipeline"},
		{[]string{"run", "--adapters", "redis", "--timeout", "0s"}, "--timeout"},
		{[]string{"run", "--adapters", "redis", "--duration", "-1s"}, "--duration"},
		{[]string{"run", "--adapters", "memcached", "--servers", "0"}, "--servers"},
		{[]string{"run", "--adapters", "redis", "--redis-addr", "127.0.0.1:1", "--redis-cluster", "127.0.0.1:2", "--flush-servers"}, "exclusive"},
		{[]string{"run", "--adapters", "memcached", "--memcached-addr", "127.0.0.1:1"}, "--flush-servers"},
		{[]string{"run", "--adapters", "redis", "--redis-addr", "127.0.0.1:1"}, "--flush-servers"},
		// An address for an adapter not selected would be ignored.
		{[]string{"run", "--adapters", "map", "--redis-addr", "127.0.0.1:1", "--flush-servers"}, "--redis-addr is for the redis"},
		{[]string{"run", "--adapters", "map", "--redis-cluster", "127.0.0.1:1", "--flush-servers"}, "--redis-cluster is for the redis"},
		{[]string{"run", "--adapters", "redis", "--memcached-addr", "127.0.0.1:1", "--flush-servers"}, "--memcached-addr is for the memcached"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, stderr, c.want)
		}
	}
}

// TestRunNetworkMissingBinary: a network adapter that would start its own
// server, without the binary on PATH, is a usage error naming the package.
func TestRunNetworkMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for adapter, pkg := range map[string]string{"memcached": "memcached", "redis-rueidis": "redis-server"} {
		code, _, stderr := runCLI(t, "run", "--adapters", adapter, "--keys", "100", "--count", "1", "--progress", "never")
		if code != exitUsage || !strings.Contains(stderr, "apt-get install -y "+pkg) {
			t.Errorf("%s without its binary: exit %d, stderr %q; want exit 2 naming %s", adapter, code, stderr, pkg)
		}
	}
}

// TestRunNetworkUnreachable: a dead address fails that adapter, named in
// the error; the other adapters of the run are measured.
func TestRunNetworkUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := runCLI(t, "run", "--adapters", "map,memcached", "--memcached-addr", dead, "--flush-servers",
		"--keys", "500", "--count", "1", "--progress", "never", "--no-floor", "--format", "json", "-o", out)
	if code != exitFailure || !strings.Contains(stderr, dead) {
		t.Errorf("exit %d, stderr %q; want exit 1 naming %s", code, stderr, dead)
	}
	res := readResult(t, out)
	if len(res.Measurements) == 0 || res.Measurements[0].Adapter != "map" {
		t.Errorf("map was not measured beside the failed memcached: %+v", res.Measurements)
	}
}

// TestRunNetworkUMem runs get-or-set/umem, scaled down, against servers
// cachebench starts (three memcached shards; one Redis) next to
// shardcache: every value verified, memory figures recorded, no server
// left running.
func TestRunNetworkUMem(t *testing.T) {
	servertest.Require(t, "memcached", "redis-server")
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := runCLI(t, "run", "--adapters", "memcached,redis,redis-rueidis,shardcache", "--workload", "get-or-set/umem",
		"--keys", "48", "--value-size", "0-262144", "--count", "1", "--progress", "never", "--no-floor", "--format", "json", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	res := readResult(t, out)
	seen := map[string]bool{}
	for _, m := range res.Measurements {
		seen[m.Adapter] = true
		s := m.Samples[0]
		if m.Workload != "get-or-set/umem" || s.Ops != 4*48 || len(m.Flags) > 0 || s.Wrong != 0 {
			t.Errorf("%s %s: ops %d, flags %v, wrong %d", m.Adapter, m.Workload, s.Ops, m.Flags, s.Wrong)
		}
		if s.LimitBytes <= 0 || s.HeldBytes <= 0 {
			t.Errorf("%s: held %d of limit %d; want both reported", m.Adapter, s.HeldBytes, s.LimitBytes)
		}
		if m.Adapter != "shardcache" && s.RSSBytes <= 0 {
			t.Errorf("%s: no server RSS", m.Adapter)
		}
	}
	if len(seen) != 4 {
		t.Errorf("measured %v, want 4 adapters", seen)
	}
	if n := netserver.Running(); n != 0 {
		t.Errorf("%d servers still running after the run", n)
	}
}

func readResult(t *testing.T, path string) *report.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res report.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	return &res
}

// TestRunNetworkInterrupt cancels a run (Ctrl-C) while the network
// adapters' servers are up: what was measured is written, and every
// server cachebench started is gone.
func TestRunNetworkInterrupt(t *testing.T) {
	servertest.Require(t, "memcached", "redis-server")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel when the third repetition begins (both adapters ran twice).
	stderr := &cancelOnWriter{marker: "rep 3/", cancel: cancel}
	var stdout bytes.Buffer
	code := Execute(ctx, []string{"run", "--adapters", "memcached,redis", "--workload", "get-or-set/umem", "--keys", "128",
		"--value-size", "0-262144", "--capacity", "0.5", "--count", "20", "--format", "json", "--progress", "always"}, &stdout, stderr)
	res := interruptedResult(t, code, stderr, &stdout)
	if !res.Interrupted || len(res.Measurements) == 0 {
		t.Errorf("interrupted %v, %d measurements; want the first repetitions kept", res.Interrupted, len(res.Measurements))
	}
	if n := netserver.Running(); n != 0 {
		t.Errorf("%d servers still running after the interrupt", n)
	}
}

// interruptedResult checks that a cancelled command exited 1 saying so,
// and returns the result it wrote.
func interruptedResult(t *testing.T, code int, stderr *cancelOnWriter, stdout *bytes.Buffer) *report.Result {
	t.Helper()
	stderr.mu.Lock()
	text := stderr.buf.String()
	stderr.mu.Unlock()
	if code != exitInterrupted || !strings.Contains(text, "interrupted") {
		t.Fatalf("exit %d, stderr %q; want exit %d saying interrupted", code, text, exitInterrupted)
	}
	res, err := report.ReadJSON(stdout)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
