package adapters

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
)

// giveUpAfter is how many requests of one adapter instance may time out
// before its guard gives up on the server: a pass with any failed request
// is not a measurement (the runner fails it), so waiting out --timeout for
// each of the pass's other requests would only keep a frozen server's
// run going for hours.
const giveUpAfter = 3

// ErrUnresponsive is wrapped by the errors of requests made after a
// guard gave up on its server.
var ErrUnresponsive = errors.New("the server does not answer")

// errInterrupted is the error of requests made after Interrupt.
var errInterrupted = errors.New("interrupted")

// connGuard dials the connections of a network adapter's client and can
// close them all at once: on Interrupt (Ctrl-C), so that requests waiting
// on a server return at once instead of after --timeout, and after
// giveUpAfter timed-out requests, so that a pass against a server that
// answers nothing ends in seconds. Once shut it dials nothing: every
// later request fails without waiting.
type connGuard struct {
	timeout  time.Duration
	timeouts atomic.Int64

	mu      sync.Mutex
	conns   map[*guardedConn]struct{}
	shutErr error
}

func newConnGuard(timeout time.Duration) *connGuard {
	return &connGuard{timeout: timeout, conns: map[*guardedConn]struct{}{}}
}

// dial is the clients' dialer (gomemcache's DialContext, go-redis's
// Dialer).
func (g *connGuard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if err := g.err(); err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: g.timeout}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	gc := &guardedConn{Conn: c, g: g}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shutErr != nil {
		c.Close()
		return nil, g.shutErr
	}
	g.conns[gc] = struct{}{}
	return gc, nil
}

// dialRueidis is dial in the shape of rueidis's DialCtxFn (no TLS here).
func (g *connGuard) dialRueidis(ctx context.Context, addr string, _ *net.Dialer, _ *tls.Config) (net.Conn, error) {
	return g.dial(ctx, "tcp", addr)
}

func (g *connGuard) err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.shutErr
}

// shut closes every connection and makes later dials fail with err.
func (g *connGuard) shut(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shutErr != nil {
		return
	}
	g.shutErr = err
	for c := range g.conns {
		c.Conn.Close()
	}
	clear(g.conns)
}

// Interrupt implements engine.Interrupter.
func (g *connGuard) Interrupt() { g.shut(errInterrupted) }

// failed counts a failed request; the giveUpAfter-th timeout shuts the
// guard.
func (g *connGuard) failed(err error) {
	var ne net.Error
	if !(errors.As(err, &ne) && ne.Timeout()) && !errors.Is(err, context.DeadlineExceeded) {
		return
	}
	if g.timeouts.Add(1) == giveUpAfter {
		g.shut(fmt.Errorf("%w: %d requests timed out (--timeout %v): given up on for the rest of the pass", ErrUnresponsive, giveUpAfter, g.timeout))
	}
}

// guardedConn removes itself from its guard when the client closes it.
type guardedConn struct {
	net.Conn
	g *connGuard
}

func (c *guardedConn) Close() error {
	c.g.mu.Lock()
	delete(c.g.conns, c)
	c.g.mu.Unlock()
	return c.Conn.Close()
}

var _ engine.Interrupter = (*connGuard)(nil)
