// Package ctxtest gives cancellation tests a context that is cancelled at
// a look the test chooses rather than by a timer: a loop that looks at its
// context is then stopped at the same point whatever the machine's speed
// or load, as Ctrl-C would stop it there.
package ctxtest

import (
	"context"
	"sync"
	"sync/atomic"
)

// Countdown is a context whose first n calls to Err return nil and every
// later one context.Canceled; Done is closed at the first of those.
type Countdown struct {
	context.Context
	n, looks atomic.Int64
	once     sync.Once
	done     chan struct{}
}

// New returns a Countdown that lets n looks pass; math.MaxInt64 lets all
// pass, to count the looks of a run that is not cancelled.
func New(n int64) *Countdown {
	c := &Countdown{Context: context.Background(), done: make(chan struct{})}
	c.n.Store(n)
	return c
}

// Err counts a look and reports whether the countdown has run out.
func (c *Countdown) Err() error {
	if c.looks.Add(1) > c.n.Load() {
		c.once.Do(func() { close(c.done) })
		return context.Canceled
	}
	return nil
}

// Done is closed once Err has reported the cancellation.
func (c *Countdown) Done() <-chan struct{} { return c.done }

// Looks is how many times Err has been called.
func (c *Countdown) Looks() int64 { return c.looks.Load() }
