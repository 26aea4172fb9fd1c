package adapters

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// TestConnGuard: Interrupt closes the connections in flight (a read
// waiting on a server that never answers returns at once) and refuses
// later dials; giveUpAfter timeouts do the same, with ErrUnresponsive.
func TestConnGuard(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // accepts, never answers
		}
	}()
	g := newConnGuard(5 * time.Second)
	c, err := g.dial(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	read := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		read <- err
	}()
	time.Sleep(20 * time.Millisecond)
	g.Interrupt()
	select {
	case <-read:
	case <-time.After(time.Second):
		t.Fatal("a read in flight did not return after Interrupt")
	}
	if _, err := g.dial(context.Background(), "tcp", l.Addr().String()); !errors.Is(err, errInterrupted) {
		t.Fatalf("dial after Interrupt: %v", err)
	}

	g = newConnGuard(time.Second)
	for i := 0; i < giveUpAfter; i++ {
		if err := g.err(); err != nil {
			t.Fatalf("shut after %d timeouts: %v", i, err)
		}
		g.failed(&net.OpError{Op: "read", Err: os.ErrDeadlineExceeded})
		g.failed(errors.New("not a timeout"))
	}
	if _, err := g.dial(context.Background(), "tcp", l.Addr().String()); !errors.Is(err, ErrUnresponsive) {
		t.Fatalf("dial after %d timeouts: %v, want ErrUnresponsive", giveUpAfter, err)
	}
}
