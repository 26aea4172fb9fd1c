package runner

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/cachebench/cachebench/internal/engine"
	_ "github.com/cachebench/cachebench/internal/engine/adapters"
	"github.com/cachebench/cachebench/internal/engine/netserver"
	"github.com/cachebench/cachebench/internal/engine/netserver/servertest"
	"github.com/cachebench/cachebench/internal/report"
)

// dyingServer wraps a network adapter and kills its server after a
// number of Gets, as a server that dies in the middle of a pass.
type dyingServer struct {
	engine.Adapter
	server *netserver.Server
	left   atomic.Int64
}

func (d *dyingServer) Get(dst, key []byte) ([]byte, bool, error) {
	if d.left.Add(-1) == 0 {
		_ = d.server.Kill()
	}
	return d.Adapter.Get(dst, key)
}

// TestServerDiesMidRun: a server killed in the middle of a pass fails the
// adapter's run (report.FailOps, recorded in Errors, so the command exits
// 1) and its pass is not recorded, so no hit ratio counted over the
// operations that answered passes for the cache's; the other adapter of
// the run is measured and unflagged.
func TestServerDiesMidRun(t *testing.T) {
	servertest.Require(t, "memcached")
	mem, err := engine.Lookup("memcached")
	if err != nil {
		t.Fatal(err)
	}
	engine.Register(engine.Factory{Name: "test-memcached-dying", Kind: engine.Network, TestOnly: true, Description: "test only",
		New: func(o engine.Options) (engine.Adapter, error) {
			s, err := netserver.StartMemcached(context.Background(), netserver.MemcachedConfig{LimitBytes: 64 << 20})
			if err != nil {
				return nil, err
			}
			o.Network.MemcachedAddrs = []string{s.Addr}
			a, err := mem.New(o)
			if err != nil {
				_ = s.Stop()
				return nil, err
			}
			d := &dyingServer{Adapter: a, server: s}
			d.left.Store(3000) // in the timed pass (the untimed one does 5,000)
			return &closeBoth{dyingServer: d}, nil
		}})
	cfg := baseConfig(t, []string{"test-memcached-dying", "test-map"}, "get-or-set/hotcold")
	cfg.Count, cfg.Procs = 1, []int{1}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 1 || res.Errors[0].Code != report.FailOps || res.Errors[0].Adapter != "test-memcached-dying" {
		t.Fatalf("errors %+v; want one %q failure of test-memcached-dying", res.Errors, report.FailOps)
	}
	for _, m := range res.Measurements {
		if m.Adapter == "test-memcached-dying" && m.Phase == report.PhaseGetOrSet {
			t.Errorf("the failed pass was recorded: %+v", m.Samples)
		}
	}
	if ok := find(t, res, "test-map", "get-or-set/hotcold", report.PhaseGetOrSet, 1); len(ok.Flags) > 0 {
		t.Errorf("test-map flagged too: %v", ok.Flags)
	}
	if n := netserver.Running(); n != 0 {
		t.Errorf("%d servers left running", n)
	}
}

// closeBoth closes the adapter, then stops the server it was given.
type closeBoth struct{ *dyingServer }

func (c *closeBoth) Close() error {
	err := c.Adapter.Close()
	if serr := c.server.Stop(); err == nil {
		err = serr
	}
	return err
}
