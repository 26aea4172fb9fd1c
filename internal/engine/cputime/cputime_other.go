//go:build !linux

package cputime

import (
	"testing"
	"time"
)

// Timer falls back to wall-clock time where the thread CPU clock is not
// available.
type Timer struct{ start time.Time }

// Start starts the timer.
func Start() Timer { return Timer{time.Now()} }

// Report adds cpu-ns/<unit> (wall-clock here) per n units.
func (t Timer) Report(b *testing.B, n int, unit string) {
	b.ReportMetric(float64(time.Since(t.start).Nanoseconds())/float64(n), "cpu-ns/"+unit)
}

// Now is wall-clock nanoseconds here.
func Now() int64 { return time.Now().UnixNano() }

// Stop returns the (wall-clock) nanoseconds since Start.
func (t Timer) Stop() int64 { return time.Since(t.start).Nanoseconds() }
