package adapters

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/redis/rueidis"

	"github.com/cachebench/cachebench/internal/engine"
)

func init() {
	engine.Register(engine.Factory{
		Name:        "redis-rueidis",
		Kind:        engine.Network,
		Description: "Redis over loopback through redis/rueidis (auto-pipelining of concurrent requests, client-side cache off); same servers as redis",
		New:         newRueidisAdapter,
	})
}

// rueidisAdapter drives Redis through rueidis. Concurrent requests share
// a few connections and are pipelined automatically (rueidis's default
// for non-blocking commands); its client-side cache is disabled so that
// every Get reaches the server like the other adapters' do.
type rueidisAdapter struct {
	redisReporter
	c   rueidis.Client
	net netSettings
}

func newRueidisAdapter(o engine.Options) (engine.Adapter, error) {
	t, ns, err := newRedisTarget(o)
	if err != nil {
		return nil, err
	}
	t.guard = newConnGuard(ns.timeout)
	c, err := rueidis.NewClient(rueidis.ClientOption{
		InitAddress:       t.addrs,
		ForceSingleClient: !t.cluster,
		DisableCache:      true,
		DisableRetry:      true,
		Dialer:            net.Dialer{Timeout: ns.timeout},
		DialCtxFn:         t.guard.dialRueidis,
		ConnWriteTimeout:  ns.timeout,
		// The maximum value may be several MiB: a reply must fit.
		ReadBufferEachConn:  1 << 20,
		WriteBufferEachConn: 1 << 20,
	})
	if err != nil {
		_ = t.owned.stop()
		return nil, fmt.Errorf("redis-rueidis %s: %w", strings.Join(t.addrs, ","), err)
	}
	a := &rueidisAdapter{redisReporter: redisReporter{t: t}, c: c, net: ns}
	a.info = a.infos
	if len(t.owned) == 0 {
		if err := a.eachMaster(func(addr string, n rueidis.Client) error {
			return n.Do(context.Background(), n.B().Flushall().Build()).Error()
		}); err != nil {
			c.Close()
			return nil, fmt.Errorf("redis-rueidis %s: FLUSHALL: %w", strings.Join(t.addrs, ","), err)
		}
	}
	return a, nil
}

// eachMaster runs fn on every node rueidis knows (the clusters cachebench
// starts and tests have masters only; a replica's READONLY error to
// FLUSHALL would surface here).
func (a *rueidisAdapter) eachMaster(fn func(addr string, c rueidis.Client) error) error {
	if !a.t.cluster {
		return fn(a.t.addrs[0], a.c)
	}
	for addr, n := range a.c.Nodes() {
		if err := fn(addr, n); err != nil {
			return fmt.Errorf("%s: %w", addr, err)
		}
	}
	return nil
}

func (a *rueidisAdapter) Name() string { return "redis-rueidis" }

// Set sends SET key val. Key and value alias the caller's slices
// (rueidis.BinaryString does not copy): Do returns only after the
// command was written and answered, and rueidis keeps no reference the
// caller could observe.
func (a *rueidisAdapter) Set(key, val []byte) error {
	cmd := a.c.B().Set().Key(unsafeString(key)).Value(rueidis.BinaryString(val)).Build()
	if err := a.c.Do(context.Background(), cmd).Error(); err != nil {
		return a.t.classify(&a.counters, "set", key, err)
	}
	return nil
}

// Get appends the value (rueidis reads it into a string, copied into dst).
func (a *rueidisAdapter) Get(dst, key []byte) ([]byte, bool, error) {
	s, err := a.c.Do(context.Background(), a.c.B().Get().Key(unsafeString(key)).Build()).ToString()
	return a.getReply(dst, key, s, err, rueidis.IsRedisNil(err))
}

// GetBatch implements engine.BatchGetter with DoMulti, Pipeline GETs per
// call (rueidis splits them by slot on a cluster).
func (a *rueidisAdapter) GetBatch(keys [][]byte, fn func(i int, val []byte, found bool)) error {
	ctx := context.Background()
	cmds := make(rueidis.Commands, 0, a.net.pipeline)
	return a.getBatch(keys, a.net.pipeline, fn, func(chunk [][]byte, reply func(j int, val string, err error) error) error {
		cmds = cmds[:0]
		for _, k := range chunk {
			cmds = append(cmds, a.c.B().Get().Key(string(k)).Build())
		}
		for j, r := range a.c.DoMulti(ctx, cmds...) {
			s, err := r.ToString()
			if err := reply(j, s, err); err != nil {
				return err
			}
		}
		return nil
	})
}

// Delete implements engine.Deleter.
func (a *rueidisAdapter) Delete(key []byte) (bool, error) {
	n, err := a.c.Do(context.Background(), a.c.B().Del().Key(string(key)).Build()).AsInt64()
	if err != nil {
		return false, a.t.classify(&a.counters, "del", key, err)
	}
	return n > 0, nil
}

func (a *rueidisAdapter) infos() ([]string, error) {
	var c infoCollector
	err := a.eachMaster(func(addr string, n rueidis.Client) error {
		return c.add(addr, n.Do(context.Background(), n.B().Info().Section(redisInfoSections...).Build()).ToString)
	})
	return c.out, err
}

// Config implements engine.Configurer.
func (a *rueidisAdapter) Config() map[string]string {
	m := map[string]string{
		"client":       "github.com/redis/rueidis (RESP3)",
		"pipelining":   "automatic: concurrent requests share connections and are pipelined (rueidis default; 4 connections per node for one server, 1 per node for a cluster)",
		"client_cache": "disabled (DisableCache): every Get reaches the server",
		"retries":      "off (DisableRetry)",
		"pipeline":     itoa(a.net.pipeline) + " GETs per DoMulti in GetBatch",
		"conns_note":   "rueidis multiplexes: conns_per_worker does not size its connections",
		"get_copy":     "rueidis returns the value as a string; the adapter copies it into dst",
		"expiry":       "none",
	}
	a.t.config(m)
	a.net.config(m)
	return m
}

// Close closes the client and stops the servers it started.
func (a *rueidisAdapter) Close() error {
	a.c.Close()
	err := a.t.owned.stop()
	a.t.owned = nil
	return err
}
