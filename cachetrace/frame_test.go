package cachetrace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// randomEntries makes n entries whose time changes at one record in
// change (never for 0), and whose ids and sizes are random (sizes 0 and
// 2^32-1 included).
func randomEntries(rng *rand.Rand, n, change int) []byte {
	b := make([]byte, n*entrySize)
	t := rng.Uint32()
	for i := range n {
		if change > 0 && rng.IntN(change) == 0 {
			t += uint32(rng.IntN(3)) + 1
		}
		size := rng.Uint32()
		switch rng.IntN(8) {
		case 0:
			size = 0
		case 1:
			size = ^uint32(0)
		case 2:
			size %= 4096
		}
		putEntry(b[i*entrySize:], t, rng.Uint64(), size)
	}
	return b
}

// encodeFrame encodes entries as one frame, handed to the encoder in
// chunks of the given record counts (cycled), as the writer hands it
// shard buffers.
func encodeFrame(entries []byte, chunks []int) []byte {
	var s frameState
	out := appendFrameHeader(nil)
	for i := 0; len(entries) > 0; i++ {
		n := min(len(entries)/entrySize, max(chunks[i%len(chunks)], 1))
		out = s.appendEntries(out, entries[:n*entrySize])
		entries = entries[n*entrySize:]
	}
	return appendFrameEnd(out)
}

func decodeKlauspost(t testing.TB, frame []byte) []byte {
	t.Helper()
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, err := d.DecodeAll(frame, nil)
	if err != nil {
		t.Fatalf("klauspost's decoder: %v", err)
	}
	return got
}

// frameCases are record counts around every boundary of the encoding:
// the 1- and 2-byte Number_of_Sequences, a bitstream's byte boundaries,
// BatchRecords and the largest block.
//
// timeChanges are the rates at which the records' time changes: never
// (B blocks), at every record (A blocks), and between.
var timeChanges = []int{0, 1, 2, 3, 50}

var frameCases = []struct {
	records int
	chunks  []int
}{
	{0, []int{1}},
	{1, []int{1}},
	{2, []int{1}},
	{2, []int{2}},
	{9, []int{9}},
	{129, []int{129}},
	{129, []int{1, 127, 1}},
	{600, []int{1, 128, 7, 8, 9, 16, 17}},
	{BatchRecords * 3, []int{BatchRecords}},
	{maxBlockRecords + 1, []int{maxBlockRecords + 1}},
	{3*maxBlockRecords + 5, []int{1 << 20}},
	{3*maxBlockRecords + 5, []int{1, maxBlockRecords, 5, maxBlockRecords - 1}},
}

func TestFrameRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, change := range timeChanges {
		for _, c := range frameCases {
			entries := randomEntries(rng, c.records, change)
			frame := encodeFrame(entries, c.chunks)
			want := expandEntries(nil, entries)
			if got := decodeKlauspost(t, frame); !bytes.Equal(got, want) {
				t.Fatalf("%d records in chunks %v, time changing at 1 in %d: decoded %d bytes, not the %d recorded",
					c.records, c.chunks, change, len(got), len(want))
			}
		}
	}
}

// TestFramesDecodeWithLibzstd checks the frames with the reference
// decoder, the zstd command (Debian's zstd package).
func TestFramesDecodeWithLibzstd(t *testing.T) {
	bin, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("the zstd command is not installed (apt-get install zstd): the frames are checked with klauspost's decoder only")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, change := range timeChanges {
		// One stream of every case, so that one zstd process checks them.
		var stream, want []byte
		for _, c := range frameCases {
			entries := randomEntries(rng, c.records, change)
			stream = append(stream, marker...)
			stream = append(stream, encodeFrame(entries, c.chunks)...)
			want = expandEntries(want, entries)
		}
		cmd := exec.Command(bin, "-d", "-c", "-q")
		cmd.Stdin = bytes.NewReader(stream)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("time changing at 1 in %d: zstd -d: %v: %s", change, err, stderr.Bytes())
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("time changing at 1 in %d: zstd -d gave %d bytes, not the %d recorded", change, len(got), len(want))
		}
	}
}

// TestFrameSize checks the encoding's size against what it stores: 12
// bytes per record inside runs of one time, 16 and a bit where the time
// changes at every record, and per block no more than a header, the
// literals and sequences headers and the bitstream's end byte.
func TestFrameSize(t *testing.T) {
	const n = 10 * BatchRecords
	const perBlock = 3 + 3 + 2 + 4 + 1
	const frame = 6 + 3 + 3 + RecordSize // header, end, the first record's Raw block
	for _, c := range []struct {
		change       int
		perRecord    int
		blocksPerRun int // per write (BatchRecords) of records
	}{
		{0, 12, 3},          // C, B..., D
		{1, 16, 1 + 1 + 12}, // A...; the first compressed block's offset bits
	} {
		entries := randomEntries(rand.New(rand.NewPCG(1, 1)), n, c.change)
		got := len(encodeFrame(entries, []int{BatchRecords}))
		limit := n*c.perRecord + n*5/8 + n/BatchRecords*c.blocksPerRun*perBlock + frame + 4*BatchRecords*5/8
		t.Logf("time changing at 1 in %d: %d records in %d bytes (%.2f per record)", c.change, n, got, float64(got)/n)
		if got > limit || got < n*c.perRecord {
			t.Errorf("time changing at 1 in %d: %d records take %d bytes; the encoding takes %d to %d",
				c.change, n, got, n*c.perRecord, limit)
		}
	}
}

// TestBitstream checks the bitstreams bit by bit as a decoder reads them:
// backwards from the end marker, per sequence the offset's bits (11) then
// the literal length's bit (0), and nothing left over.
func TestBitstream(t *testing.T) {
	for _, c := range []struct{ llBits, ofBits uint }{{1, 4}, {0, 4}, {1, 0}, {0, 0}} {
		for _, n := range []int{1, 2, 3, 8, 13, 512} {
			b := appendBitstream(nil, n, c.llBits, c.ofBits)
			last := b[len(b)-1]
			if last == 0 {
				t.Fatalf("%+v n=%d: no end marker", c, n)
			}
			pos := (len(b)-1)*8 + 7
			for last&0x80 == 0 {
				last <<= 1
				pos--
			}
			read := func(bits uint) (v uint) {
				for range bits {
					pos--
					v = v<<1 | uint(b[pos/8]>>(pos%8))&1
				}
				return v
			}
			for i := range n {
				of := read(c.ofBits)
				if ll := read(c.llBits); (c.ofBits > 0 && of != ofExtra24) || ll != 0 {
					t.Fatalf("%+v n=%d: sequence %d reads offset bits %d, literal-length bits %d", c, n, i, of, ll)
				}
			}
			if pos != 0 {
				t.Fatalf("%+v n=%d: %d bits left over", c, n, pos)
			}
		}
	}
}

// FuzzFrame: any stream of records, handed over in any chunks, decodes to
// itself.
func FuzzFrame(f *testing.F) {
	f.Add([]byte{1}, []byte("0123456789abcdef"), byte(0))
	f.Add([]byte{0, 200, 3}, bytes.Repeat([]byte{0xff, 0, 7}, 2000), byte(0))
	f.Add([]byte{30, 2}, bytes.Repeat([]byte("0123456789abcdef"), 300), byte(0))
	f.Add([]byte{5, 1, 40}, bytes.Repeat([]byte{1, 2, 3, 4, 5}, 900), byte(7))
	f.Fuzz(func(t *testing.T, chunkBytes, data []byte, run byte) {
		if len(data) > 1<<20 {
			return
		}
		entries := append([]byte(nil), data[:len(data)-len(data)%entrySize]...)
		if run > 0 { // runs of run records of one time
			for i := 0; i < len(entries); i += entrySize {
				binary.LittleEndian.PutUint32(entries[i:], uint32(i/entrySize/int(run)))
			}
		}
		chunks := []int{BatchRecords}
		if len(chunkBytes) > 0 {
			chunks = chunks[:0]
			for _, c := range chunkBytes {
				chunks = append(chunks, int(c)*int(c)) // up to 65025: more than a block
			}
		}
		frame := encodeFrame(entries, chunks)
		got := decodeKlauspost(t, frame)
		want := expandEntries(nil, entries)
		if !bytes.Equal(got, want) {
			t.Fatalf("%d records in chunks %v: decoded %d bytes, want %d", len(entries)/entrySize, chunks, len(got), len(want))
		}
		for i := 0; i+RecordSize <= len(got); i += RecordSize {
			if binary.LittleEndian.Uint64(got[i+16:]) != ^uint64(0) {
				t.Fatalf("record %d: next request is not -1", i/RecordSize+1)
			}
		}
	})
}

// BenchmarkFrameEncode is the writer's encoding cost per record, for a
// shard buffer of BatchRecords records.
// time=fixed is one run of one time (B blocks), time=changing a time
// that changes at every record (A blocks).
func BenchmarkFrameEncode(b *testing.B) {
	for _, c := range []struct {
		name   string
		change int
	}{{"fixed", 0}, {"changing", 1}} {
		b.Run("time="+c.name, func(b *testing.B) {
			entries := randomEntries(rand.New(rand.NewPCG(3, 4)), BatchRecords, c.change)
			out := make([]byte, 0, 2*len(entries))
			var s frameState
			out = s.appendEntries(appendFrameHeader(out), entries)
			b.SetBytes(int64(len(entries)))
			b.ReportAllocs()
			for b.Loop() {
				out = s.appendEntries(out[:0], entries)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*BatchRecords), "ns/record")
		})
	}
}

// TestWriteDoesNotAllocate checks frameCodec on the write with the most
// encoded bytes per record: times in pairs, so that every block holds one
// record (C, D, C, D...), from the frame's first record on.
func TestWriteDoesNotAllocate(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "w.zst"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries := randomEntries(rand.New(rand.NewPCG(2, 3)), BatchRecords, 0)
	for i := 0; i < len(entries); i += entrySize {
		binary.LittleEndian.PutUint32(entries[i:], uint32(i/entrySize/2))
	}
	var s frameState
	if got, limit := len(s.appendEntries(nil, entries)), BatchRecords*maxEncodedRecord; got > limit {
		t.Fatalf("a write of %d records encodes to %d bytes, more than maxEncodedRecord allows (%d)", BatchRecords, got, limit)
	}
	c := newFrameCodec(f, 0)
	if n := testing.AllocsPerRun(200, func() {
		if err := c.write(entries); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("frameCodec.write allocates %v times per call", n)
	}
}

// TestWriteErrorNamesTheFile: a failed write is an error that names the
// file and wraps the cause.
func TestWriteErrorNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "closed.zst")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	c := newFrameCodec(f, 0)
	if err := c.write(randomEntries(rand.New(rand.NewPCG(4, 5)), 10, 0)); err != nil {
		t.Fatalf("a write that stays in the buffer: %v", err)
	}
	err = c.flush()
	if !errors.Is(err, os.ErrClosed) || !strings.Contains(err.Error(), path) {
		t.Errorf("flush to a closed file: %v, want os.ErrClosed naming %s", err, path)
	}
}
