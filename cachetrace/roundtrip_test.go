package cachetrace_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"

	"github.com/cachebench/cachebench/cachetrace"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// TestRoundTripEveryReader records a stream with sizes of every range and
// a clock that moves, into files rotated at a small size, in both
// encodings, and reads every file back with klauspost's zstd decoder,
// cachebench's trace reader and (when installed) the zstd command: all
// three give the same records, which are the requests recorded.
func TestRoundTripEveryReader(t *testing.T) {
	for _, compact := range []bool{false, true} {
		t.Run(fmt.Sprintf("compact=%v", compact), func(t *testing.T) {
			var ticks atomic.Int64
			const base = 1_700_000_000
			clock := func() time.Time { return time.Unix(base+ticks.Add(1), 0) }
			// One shard keeps the one goroutine's order; a flush every
			// millisecond (the clock moves a second each) makes blocks of
			// every length.
			r, err := cachetrace.NewWithClock(cachetrace.Options{Dir: t.TempDir(), Name: "rt", Shards: 1, Lossless: true,
				FlushInterval: time.Millisecond, MaxFileBytes: 64 << 10, Compact: compact}, clock)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(5, 6))
			const n = 30000
			type req struct {
				id   uint64
				size uint32
			}
			var want []req
			for i := range n {
				key := fmt.Appendf(nil, "object:%d", rng.IntN(5000))
				size := []int{0, -5, 1, rng.IntN(1 << 20), math.MaxUint32, math.MaxUint32 + 1, 1 << 40}[rng.IntN(7)]
				r.Record(key, size)
				want = append(want, req{xxhash.Sum64(key), uint32(min(max(size, 0), math.MaxUint32))})
				if i%3000 == 0 {
					time.Sleep(3 * time.Millisecond) // let the clock move
				}
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			files := r.Stats().Files
			if len(files) < 3 {
				t.Fatalf("%d files at a 64 KiB limit", len(files))
			}
			var all []trace.Request
			for _, f := range files {
				raw := decodeFile(t, f)
				viaReader := readTrace(t, f)
				if len(viaReader)*cachetrace.RecordSize != len(raw) {
					t.Fatalf("%s: the trace reader gives %d records, the zstd decoder %d bytes", f, len(viaReader), len(raw))
				}
				for i, q := range viaReader {
					b := raw[i*cachetrace.RecordSize:]
					if q.Time != binary.LittleEndian.Uint32(b) || q.ID != binary.LittleEndian.Uint64(b[4:]) ||
						q.Size != binary.LittleEndian.Uint32(b[12:]) || int64(binary.LittleEndian.Uint64(b[16:])) != -1 || q.Next != trace.NoNext {
						t.Fatalf("%s record %d: the trace reader gives %+v, the zstd decoder %x", f, i+1, q, b[:cachetrace.RecordSize])
					}
				}
				if cli := decodeCLI(t, f); cli != nil && !bytes.Equal(cli, raw) {
					t.Fatalf("%s: zstd -d gives %d bytes, klauspost's decoder %d, or other bytes", f, len(cli), len(raw))
				}
				all = append(all, viaReader...)
			}
			if len(all) != n {
				t.Fatalf("%d records read, %d recorded", len(all), n)
			}
			times := map[uint32]bool{}
			for i, q := range all {
				if q.ID != want[i].id || q.Size != want[i].size {
					t.Fatalf("record %d: id %x size %d, recorded %x %d", i+1, q.ID, q.Size, want[i].id, want[i].size)
				}
				if q.Time <= base || int64(q.Time) > base+ticks.Load() || (i > 0 && q.Time < all[i-1].Time) {
					t.Fatalf("record %d: time %d is not the clock's (%d..%d, after %d)", i+1, q.Time, base+1, base+ticks.Load(), all[max(i-1, 0)].Time)
				}
				times[q.Time] = true
			}
			if len(times) < 2 {
				t.Errorf("the records carry %d distinct times: the clock did not move", len(times))
			}
		})
	}
}

func decodeFile(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := zstd.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := io.ReadAll(d)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

func readTrace(t *testing.T, path string) []trace.Request {
	t.Helper()
	tf, err := trace.Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	var out []trace.Request
	for {
		var q trace.Request
		err := tf.Next(&q)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, q)
	}
}

// decodeCLI decodes path with the zstd command, or returns nil when it is
// not installed.
func decodeCLI(t *testing.T, path string) []byte {
	t.Helper()
	bin, err := exec.LookPath("zstd")
	if err != nil {
		t.Log("the zstd command is not installed (apt-get install zstd): not checked with libzstd")
		return nil
	}
	out, err := exec.Command(bin, "-d", "-c", "-q", path).Output()
	if err != nil {
		t.Fatalf("zstd -d %s: %v", path, err)
	}
	return out
}
