package cachetrace

import (
	"fmt"
	"os"
	"sync/atomic"
	"testing"
)

// BenchmarkRecord measures what Record costs the goroutine that calls it
// (-cpu 1,2 for one and two goroutines): the hash, the compare and, for a
// sampled key, the write into a shard's buffer. The writer compresses on
// its own goroutine; when a tight loop outruns it, full buffers are
// dropped (dropped/op says how many), which skips only a hand-off per
// BatchRecords requests. The keys are made before the clock starts.
func BenchmarkRecord(b *testing.B) {
	benchRecord(b, false, false)
}

// BenchmarkRecordSustained is BenchmarkRecord with Lossless set: every
// request is written, and ns/op includes waiting for the writer, so it
// measures the rate the recorder can sustain (the writer's encoding and
// file writes) rather than the cost on the request path. The compact
// sub-benchmarks are the same with Options.Compact (klauspost's encoder);
// bytes/op is the file size per request.
func BenchmarkRecordSustained(b *testing.B) {
	benchRecord(b, true, false)
	b.Run("compact", func(b *testing.B) { benchRecord(b, true, true) })
}

func benchRecord(b *testing.B, lossless, compact bool) {
	keys := make([][]byte, 1<<16)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "user:%d:profile", i*7919)
	}
	for _, rate := range []float64{1, 0.01} {
		b.Run(fmt.Sprintf("rate=%g", rate), func(b *testing.B) {
			r, err := New(Options{Dir: b.TempDir(), Rate: rate, Lossless: lossless, Compact: compact})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var worker atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				// Each goroutine starts at its own place in the keys, as
				// a service's goroutines serve different requests: in
				// lockstep they would all want the same shard at once.
				i := int(worker.Add(1)) * 8191
				for pb.Next() {
					r.Record(keys[i&(len(keys)-1)], 1000)
					i++
				}
			})
			b.StopTimer()
			if err := r.Close(); err != nil {
				b.Fatal(err)
			}
			s := r.Stats()
			b.ReportMetric(float64(s.Dropped)/float64(b.N), "dropped/op")
			var size int64
			for _, f := range s.Files {
				fi, err := os.Stat(f)
				if err != nil {
					b.Fatal(err)
				}
				size += fi.Size()
			}
			b.ReportMetric(float64(size)/float64(b.N), "bytes/op")
		})
	}
}
