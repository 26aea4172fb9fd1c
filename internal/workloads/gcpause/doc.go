// Package gcpause measures what a cache's entries cost the Go garbage
// collector, one adapter per child process.
//
// The popular comparison (bigcache's README) fills each cache with 20M
// entries and reads only the stop-the-world pause. In modern Go that pause
// is tens of microseconds whatever the heap holds; what grows with the
// number of pointers on the heap is the concurrent mark phase. So a child
// (MeasureAdapter) fills one adapter and reports the fill time, the STW
// pauses, the wall time and CPU time of a full forced collection, heap
// objects, heap in use, peak RSS, the latency of Gets issued inside and
// outside collections, and a verified sample of the entries.
//
// Measure is the parent: it re-executes this program once per adapter and
// repetition, so no adapter's garbage or RSS high-water mark pollutes
// another's figures, and returns the run as a report.Result. The package
// owns the whole parent/child protocol (see protocol.go): the program's
// main only calls ServeChild first thing, and the gc-pause command never
// sees a child.
//
// Keys ("key_%d") and values are those of the workloads codec (values
// carry end tags of their key index, version and length), both
// generated into reused buffers so that generation leaves no heap objects
// behind (the adapters copy what they keep).
package gcpause
