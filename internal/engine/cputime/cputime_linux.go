//go:build linux

// Package cputime measures the CPU time of the calling thread, for
// benchmarks on a machine shared with other processes: the time a thread
// spent waiting for a core is not in it, where wall-clock ns/op measures
// the load as well. It is for benchmarks only; no command uses it.
package cputime

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// Timer measures the CPU time of the benchmark's own thread.
type Timer struct{ start int64 }

func threadCPU() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return ts.Nano()
}

// Start pins the goroutine to its thread and starts the timer.
func Start() Timer {
	runtime.LockOSThread()
	return Timer{threadCPU()}
}

// Report adds cpu-ns/<unit>: thread CPU time per n units.
func (t Timer) Report(b *testing.B, n int, unit string) {
	d := threadCPU() - t.start
	runtime.UnlockOSThread()
	b.ReportMetric(float64(d)/float64(n), "cpu-ns/"+unit)
}

// Now is the thread's CPU time in nanoseconds; the caller keeps the
// goroutine on its thread (runtime.LockOSThread).
func Now() int64 { return threadCPU() }

// Stop returns the thread CPU time since Start, in nanoseconds, and
// unpins the goroutine.
func (t Timer) Stop() int64 {
	d := threadCPU() - t.start
	runtime.UnlockOSThread()
	return d
}
