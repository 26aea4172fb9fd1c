package cachetrace

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// randomEntries makes n entries whose times change now and then, and
// whose ids and sizes are random (sizes 0 and 2^32-1 included).
func randomEntries(rng *rand.Rand, n int) []byte {
	b := make([]byte, n*entrySize)
	t := rng.Uint32()
	for i := range n {
		if rng.IntN(50) == 0 {
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
	for _, c := range frameCases {
		entries := randomEntries(rng, c.records)
		frame := encodeFrame(entries, c.chunks)
		want := expandEntries(nil, entries)
		if got := decodeKlauspost(t, frame); !bytes.Equal(got, want) {
			t.Fatalf("%d records in chunks %v: decoded %d bytes, not the %d recorded", c.records, c.chunks, len(got), len(want))
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
	for _, c := range frameCases {
		entries := randomEntries(rng, c.records)
		frame := append(append([]byte(nil), marker...), encodeFrame(entries, c.chunks)...)
		cmd := exec.Command(bin, "-d", "-c", "-q")
		cmd.Stdin = bytes.NewReader(frame)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("%d records in chunks %v: zstd -d: %v: %s", c.records, c.chunks, err, stderr.Bytes())
		}
		if want := expandEntries(nil, entries); !bytes.Equal(got, want) {
			t.Fatalf("%d records in chunks %v: zstd -d gave %d bytes, not the %d recorded", c.records, c.chunks, len(got), len(want))
		}
	}
}

// TestFrameSize checks the encoding's size: the entries' bytes, a bit per
// record, and per block a header, the literals and sequences headers and
// the bitstream's end byte.
func TestFrameSize(t *testing.T) {
	const n = 10 * BatchRecords
	entries := randomEntries(rand.New(rand.NewPCG(1, 1)), n)
	frame := encodeFrame(entries, []int{BatchRecords})
	blocks := n/BatchRecords + 1 // and the Raw block of the first record
	perBlock := 3 + 3 + 2 + 4 + 1
	limit := len(entries) + RecordSize - entrySize + 3 + // the Raw block's 8 bytes of next and header
		n*5/8 + blocks*perBlock + 6 + 3 // bits, block overheads, frame header, end block
	if len(frame) > limit {
		t.Errorf("%d records take %d bytes, more than the %d the encoding allows", n, len(frame), limit)
	}
	if len(frame) < len(entries) {
		t.Errorf("%d records take %d bytes, fewer than their %d bytes of literals", n, len(frame), len(entries))
	}
}

// TestExplicitBitstream checks the first compressed block's bitstream bit
// by bit as a decoder reads it: backwards from the end marker, per
// sequence 4 offset bits (11) and then one literal-length bit (0), and
// nothing left over.
func TestExplicitBitstream(t *testing.T) {
	for _, n := range []int{1, 2, 3, 8, 13, 512} {
		b := appendExplicitBitstream(nil, n)
		last := b[len(b)-1]
		if last == 0 {
			t.Fatalf("n=%d: no end marker", n)
		}
		pos := (len(b)-1)*8 + 7
		for last&0x80 == 0 {
			last <<= 1
			pos--
		}
		bit := func() uint { pos--; return uint(b[pos/8]>>(pos%8)) & 1 }
		for i := range n {
			var of uint
			for range 4 {
				of = of<<1 | bit()
			}
			if ll := bit(); of != ofExtra24 || ll != 0 {
				t.Fatalf("n=%d: sequence %d reads offset bits %d, literal-length bit %d", n, i, of, ll)
			}
		}
		if pos != 0 {
			t.Fatalf("n=%d: %d bits left over", n, pos)
		}
	}
}

// FuzzFrame: any stream of records, handed over in any chunks, decodes to
// itself.
func FuzzFrame(f *testing.F) {
	f.Add([]byte{1}, []byte("0123456789abcdef"))
	f.Add([]byte{0, 200, 3}, bytes.Repeat([]byte{0xff, 0, 7}, 2000))
	f.Fuzz(func(t *testing.T, chunkBytes, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		entries := data[:len(data)-len(data)%entrySize]
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
func BenchmarkFrameEncode(b *testing.B) {
	entries := randomEntries(rand.New(rand.NewPCG(3, 4)), BatchRecords)
	out := make([]byte, 0, 2*len(entries))
	var s frameState
	out = s.appendEntries(appendFrameHeader(out), entries)
	b.SetBytes(int64(len(entries)))
	b.ReportAllocs()
	for b.Loop() {
		out = s.appendEntries(out[:0], entries)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*BatchRecords), "ns/record")
}
