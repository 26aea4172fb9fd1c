//go:build linux

package shardcache

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// CPUTimer measures the CPU time of the benchmark's own thread, which on
// a machine shared with other processes excludes the time the thread
// spent waiting for a core (wall-clock ns/op then measures the load).
type CPUTimer struct{ start int64 }

func threadCPU() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return ts.Nano()
}

// StartCPU pins the goroutine to its thread and starts the timer
// (exported for the peer benchmarks of package shardcache_test).
func StartCPU() CPUTimer {
	runtime.LockOSThread()
	return CPUTimer{threadCPU()}
}

// Report adds cpu-ns/<unit>: thread CPU time per n units.
func (t CPUTimer) Report(b *testing.B, n int, unit string) {
	d := threadCPU() - t.start
	runtime.UnlockOSThread()
	b.ReportMetric(float64(d)/float64(n), "cpu-ns/"+unit)
}

// cpuNow is the thread's CPU time in nanoseconds; the caller keeps the
// goroutine on its thread (runtime.LockOSThread).
func cpuNow() int64 { return threadCPU() }

// Stop returns the thread CPU time since StartCPU, in nanoseconds, and
// unpins the goroutine.
func (t CPUTimer) Stop() int64 {
	d := threadCPU() - t.start
	runtime.UnlockOSThread()
	return d
}
