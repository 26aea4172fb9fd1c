package cachetrace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"
)

func TestHashIsXXH64(t *testing.T) {
	b := make([]byte, 200)
	for i := range b {
		b[i] = byte(i*131 + 7)
	}
	for n := 0; n <= len(b); n++ {
		if got, want := hashKey(b[:n]), xxhash.Sum64(b[:n]); got != want {
			t.Fatalf("len %d: hash %x, XXH64 %x", n, got, want)
		}
	}
}

type rec struct {
	time uint32
	id   uint64
	size uint32
	next int64
}

// readFile decodes a recorder file with a plain zstd decoder (which skips
// the marker frame) and checks the marker.
func readFile(t *testing.T, path string) []rec {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !Marked(raw) {
		t.Fatalf("%s does not start with the marker frame", path)
	}
	d, err := zstd.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	data, err := io.ReadAll(d)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(data)%RecordSize != 0 {
		t.Fatalf("%s: %d bytes, not whole records", path, len(data))
	}
	var out []rec
	for b := data; len(b) > 0; b = b[RecordSize:] {
		out = append(out, rec{binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint64(b[4:]),
			binary.LittleEndian.Uint32(b[12:]), int64(binary.LittleEndian.Uint64(b[16:]))})
	}
	return out
}

func readAll(t *testing.T, r *Recorder) []rec {
	t.Helper()
	var out []rec
	for _, f := range r.Stats().Files {
		out = append(out, readFile(t, f)...)
	}
	return out
}

func TestRecordWritesHashedKeysAndSizes(t *testing.T) {
	eachCodec(t, testRecordWritesHashedKeysAndSizes)
}

func testRecordWritesHashedKeysAndSizes(t *testing.T, compact bool) {
	dir := t.TempDir()
	r, err := New(Options{Dir: dir, Name: "t", Shards: 1, Lossless: true, Compact: compact})
	if err != nil {
		t.Fatal(err)
	}
	before := uint32(time.Now().Unix())
	const n = 3000
	for i := range n {
		r.Record(fmt.Appendf(nil, "key_%d", i%700), i%5000-3) // sizes below 0 clamp to 0
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, r)
	if len(got) != n {
		t.Fatalf("%d records, want %d", len(got), n)
	}
	// One shard keeps the order of one goroutine's requests exactly.
	for i, g := range got {
		want := rec{id: xxhash.Sum64(fmt.Appendf(nil, "key_%d", i%700)), size: uint32(max(i%5000-3, 0)), next: -1}
		if g.id != want.id || g.size != want.size || g.next != -1 {
			t.Fatalf("record %d: %+v, want id %x size %d next -1", i+1, g, want.id, want.size)
		}
		if g.time+2 < before || g.time > uint32(time.Now().Unix())+2 {
			t.Fatalf("record %d: time %d is not now (%d)", i+1, g.time, before)
		}
	}
	if s := r.Stats(); s.Written != n || s.Dropped != 0 {
		t.Errorf("stats %+v, want %d written, 0 dropped", s, n)
	}
	r.Record([]byte("after close"), 1) // dropped, and no panic
	if got := readAll(t, r); len(got) != n {
		t.Errorf("a Record after Close was written")
	}
	if filepath.Base(r.Stats().Files[0]) != "t.000001.oracleGeneral.zst" {
		t.Errorf("first file %s", r.Stats().Files[0])
	}
}

func TestSamplingByKey(t *testing.T) {
	r, err := New(Options{Dir: t.TempDir(), Rate: 0.1, Lossless: true})
	if err != nil {
		t.Fatal(err)
	}
	const keys = 20000
	for round := range 3 {
		for i := range keys {
			r.Record(fmt.Appendf(nil, "k%d", i), round)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	count := map[uint64]int{}
	for _, g := range readAll(t, r) {
		count[g.id]++
	}
	// 10% of 20,000 keys: 2,000 with sd 42; 6 sd either side.
	if len(count) < 1750 || len(count) > 2250 {
		t.Errorf("%d of %d keys sampled at rate 0.1", len(count), keys)
	}
	for id, c := range count {
		if c != 3 {
			t.Fatalf("key %x recorded %d times of 3: sampling is not by key", id, c)
		}
	}
}

// eachCodec runs f for the default encoding and for Compact.
func eachCodec(t *testing.T, f func(t *testing.T, compact bool)) {
	for _, compact := range []bool{false, true} {
		t.Run(fmt.Sprintf("compact=%v", compact), func(t *testing.T) { f(t, compact) })
	}
}

func TestRotation(t *testing.T) { eachCodec(t, testRotation) }

func testRotation(t *testing.T, compact bool) {
	r, err := New(Options{Dir: t.TempDir(), MaxFileBytes: 4096, Shards: 2, Lossless: true, Compact: compact})
	if err != nil {
		t.Fatal(err)
	}
	const n = 50000
	for i := range n {
		r.Record(fmt.Appendf(nil, "%d", i), 100)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	files := r.Stats().Files
	if len(files) < 3 {
		t.Fatalf("%d files for %d records at a 4 KiB limit", len(files), n)
	}
	seen := map[uint64]bool{}
	for _, g := range readAll(t, r) {
		seen[g.id] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct records over %d files, want %d", len(seen), len(files), n)
	}
}

func TestNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "cachetrace.000001.oracleGeneral.zst")
	if err := os.WriteFile(old, []byte("earlier"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if b, _ := os.ReadFile(old); string(b) != "earlier" {
		t.Errorf("an existing trace was overwritten")
	}
	if got := filepath.Base(r.Stats().Files[0]); got != "cachetrace.000002.oracleGeneral.zst" {
		t.Errorf("first file %s, want number 2", got)
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{{Rate: -1}, {Rate: 1.5}, {Rate: math.NaN()}, {Dir: "/nonexistent/dir"}} {
		if r, err := New(o); err == nil {
			r.Close()
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

// TestConcurrentRecord runs many goroutines against few shards, so that
// the busy-shard path runs; under -race it checks the locking.
func TestConcurrentRecord(t *testing.T) { eachCodec(t, testConcurrentRecord) }

func testConcurrentRecord(t *testing.T, compact bool) {
	r, err := New(Options{Dir: t.TempDir(), Shards: 2, FlushInterval: time.Millisecond, Compact: compact})
	if err != nil {
		t.Fatal(err)
	}
	const g, per = 16, 5000
	var wg sync.WaitGroup
	for w := range g {
		wg.Go(func() {
			for i := range per {
				r.Record(fmt.Appendf(nil, "%d/%d", w, i), i)
			}
		})
	}
	wg.Go(func() { // Stats while recording
		for range 100 {
			r.Stats()
		}
	})
	wg.Wait()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	s := r.Stats()
	if got := len(readAll(t, r)); int64(got) != s.Written || s.Written+s.Dropped != g*per {
		t.Errorf("%d records read, stats %+v, %d recorded", got, s, g*per)
	}
}

// TestFlushBoundsLoss checks that what is recorded reaches the file
// within FlushInterval, while the recorder still runs: what a process
// killed then leaves.
func TestFlushBoundsLoss(t *testing.T) { eachCodec(t, testFlushBoundsLoss) }

func testFlushBoundsLoss(t *testing.T, compact bool) {
	r, err := New(Options{Dir: t.TempDir(), FlushInterval: 20 * time.Millisecond, Compact: compact})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range 100 {
		r.Record(fmt.Appendf(nil, "%d", i), 1)
	}
	// Polled: a loaded machine may run the writer late, but within
	// seconds it must have flushed every record into the file.
	var data []byte
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		raw, err := os.ReadFile(r.Stats().Files[0])
		if err != nil {
			t.Fatal(err)
		}
		d, _ := zstd.NewReader(bytes.NewReader(raw))
		data, _ = io.ReadAll(d) // the frame is not ended: an error is expected
		d.Close()
		if len(data) == 100*RecordSize {
			break
		}
	}
	if len(data) != 100*RecordSize {
		t.Errorf("a live recorder's file holds %d bytes of records, want %d", len(data), 100*RecordSize)
	}
}

// TestRecordDoesNotAllocate counts the allocations of the whole process
// (the writer's too) per recorded request, in both encodings.
func TestRecordDoesNotAllocate(t *testing.T) { eachCodec(t, testRecordDoesNotAllocate) }

func testRecordDoesNotAllocate(t *testing.T, compact bool) {
	r, err := New(Options{Dir: t.TempDir(), Lossless: true, Compact: compact})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	keys := make([][]byte, 4096)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "key:%d", i)
	}
	i := 0
	if n := testing.AllocsPerRun(100*BatchRecords, func() {
		r.Record(keys[i%len(keys)], i)
		i++
	}); n != 0 {
		t.Errorf("%v allocations per recorded request", n)
	}
}
