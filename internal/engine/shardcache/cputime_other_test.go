//go:build !linux

package shardcache

import (
	"testing"
	"time"
)

// CPUTimer falls back to wall-clock time where the thread CPU clock is
// not available.
type CPUTimer struct{ start time.Time }

// StartCPU starts the timer.
func StartCPU() CPUTimer { return CPUTimer{time.Now()} }

// Report adds cpu-ns/<unit> (wall-clock here) per n units.
func (t CPUTimer) Report(b *testing.B, n int, unit string) {
	b.ReportMetric(float64(time.Since(t.start).Nanoseconds())/float64(n), "cpu-ns/"+unit)
}

// cpuNow is wall-clock nanoseconds here.
func cpuNow() int64 { return time.Now().UnixNano() }

// Stop returns the (wall-clock) nanoseconds since StartCPU.
func (t CPUTimer) Stop() int64 { return time.Since(t.start).Nanoseconds() }
