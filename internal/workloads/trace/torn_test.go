package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/cachebench/cachebench/cachetrace"
)

// captureWarnings sends the readers' warnings to a buffer for the test.
func captureWarnings(t *testing.T) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	old := Warnings
	Warnings = &b
	t.Cleanup(func() { Warnings = old })
	return &b
}

func readIDs(path string, f Format) ([]uint64, error) {
	tf, err := Open(path, f)
	if err != nil {
		return nil, err
	}
	defer tf.Close()
	var ids []uint64
	var q Request
	for {
		err := tf.Next(&q)
		if errors.Is(err, io.EOF) {
			return ids, nil
		}
		if err != nil {
			return ids, err
		}
		ids = append(ids, q.ID)
	}
}

// liveRecording records n requests and returns the bytes of the file
// while the recorder still runs (its zstd frame not ended, as a killed
// process leaves it), after the records have been flushed.
func liveRecording(t *testing.T, n int, compact bool) []byte {
	t.Helper()
	r, err := cachetrace.New(cachetrace.Options{Dir: t.TempDir(), FlushInterval: 10 * time.Millisecond, Lossless: true, Compact: compact})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range n {
		r.Record(fmt.Appendf(nil, "key%d", i%500), 100)
	}
	// Wait until a flush has put every record into the file.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		raw, err := os.ReadFile(r.Stats().Files[0])
		if err != nil {
			t.Fatal(err)
		}
		if decodedLen(raw) == n*OracleRecordSize {
			return raw
		}
		if time.Now().After(deadline) {
			t.Fatalf("the recorder's file holds %d bytes of records after 30 s, want %d", decodedLen(raw), n*OracleRecordSize)
		}
	}
}

// decodedLen is how many bytes a zstd stream decodes to before it ends.
func decodedLen(raw []byte) int {
	d, err := zstd.NewReader(bytes.NewReader(raw))
	if err != nil {
		return 0
	}
	defer d.Close()
	b, _ := io.ReadAll(d)
	return len(b)
}

// TestRecordedFileTornEnd checks both of the recorder's encodings: its
// own zstd frames and klauspost's (Options.Compact).
func TestRecordedFileTornEnd(t *testing.T) {
	for _, compact := range []bool{false, true} {
		t.Run(fmt.Sprintf("compact=%v", compact), func(t *testing.T) { testRecordedFileTornEnd(t, compact) })
	}
}

func testRecordedFileTornEnd(t *testing.T, compact bool) {
	warn := captureWarnings(t)
	const n = 6000
	raw := liveRecording(t, n, compact)
	dir := t.TempDir()
	path := filepath.Join(dir, "live.oracleGeneral.zst")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := readIDs(path, "")
	if err != nil || len(all) != n {
		t.Fatalf("live recording: %d records, %v; want %d and no error", len(all), err, n)
	}
	if !strings.Contains(warn.String(), "ends early") || !strings.Contains(warn.String(), "6000 complete records") {
		t.Errorf("no warning for a recording without its end: %q", warn.String())
	}
	// Cut anywhere, the file replays the records that are whole, in order.
	var cuts []int
	for cut := cachetrace.MarkerLen + 1; cut < len(raw); cut += max(len(raw)/37, 1) {
		cuts = append(cuts, cut)
	}
	checkCuts(t, warn, path, raw, all, cuts)
}

// checkCuts writes raw cut at each length of cuts (ascending) to path, and
// checks that each replays without an error, with the warning, the first
// records of all, no fewer than a shorter cut. It returns how many the
// longest cut replays.
func checkCuts(t *testing.T, warn *bytes.Buffer, path string, raw []byte, all []uint64, cuts []int) int {
	t.Helper()
	most := 0
	for _, cut := range cuts {
		warn.Reset()
		if err := os.WriteFile(path, raw[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		ids, err := readIDs(path, Oracle)
		if err != nil {
			t.Fatalf("cut at %d of %d bytes: %v", cut, len(raw), err)
		}
		if !slicesPrefix(all, ids) || len(ids) < most {
			t.Fatalf("cut at %d: the %d records read are not the recording's first (%d at a shorter cut)", cut, len(ids), most)
		}
		most = len(ids)
		if !strings.Contains(warn.String(), "ends early") {
			t.Fatalf("cut at %d: no warning", cut)
		}
	}
	return most
}

// TestRecordedFileCutAtBlockEdges cuts a recording in the default
// encoding at every byte of its frame header and first blocks, at and
// around every block boundary, and every 61st byte elsewhere. Each cut
// replays the records that are whole before it, with the warning.
func TestRecordedFileCutAtBlockEdges(t *testing.T) {
	warn := captureWarnings(t)
	const n = 700 // more than one shard buffer, so blocks of several sizes
	raw := liveRecording(t, n, false)
	path := filepath.Join(t.TempDir(), "live.oracleGeneral.zst")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := readIDs(path, "")
	if err != nil || len(all) != n {
		t.Fatalf("live recording: %d records, %v; want %d", len(all), err, n)
	}
	most := checkCuts(t, warn, path, raw, all, cutsAtBlockEdges(raw))
	if most < n-cachetrace.BatchRecords {
		t.Errorf("the longest cut replays %d of %d records", most, n)
	}
}

// cutsAtBlockEdges lists the cut lengths for a recorder file: every byte
// of the first 256 after the marker, the 4 bytes either side of each
// block's start (its 3-byte header gives its size), and every 61st byte.
func cutsAtBlockEdges(raw []byte) []int {
	seen := map[int]bool{}
	var cuts []int
	add := func(c int) {
		if c > cachetrace.MarkerLen && c < len(raw) && !seen[c] {
			seen[c] = true
			cuts = append(cuts, c)
		}
	}
	for c := cachetrace.MarkerLen; c < cachetrace.MarkerLen+256; c++ {
		add(c)
	}
	for c := cachetrace.MarkerLen; c < len(raw); c += 61 {
		add(c)
	}
	for at := cachetrace.MarkerLen + 6; at+3 <= len(raw); { // after the frame header
		for d := -4; d <= 4; d++ {
			add(at + d)
		}
		at += 3 + int(uint32(raw[at])|uint32(raw[at+1])<<8|uint32(raw[at+2])<<16)>>3
	}
	slices.Sort(cuts)
	return cuts
}

func slicesPrefix(all, p []uint64) bool {
	return len(p) <= len(all) && fmt.Sprint(all[:len(p)]) == fmt.Sprint(p)
}

// TestTornEndElsewhereIsAnError: the rule is the recorder's files' alone.
func TestTornEndElsewhereIsAnError(t *testing.T) {
	warn := captureWarnings(t)
	dir := t.TempDir()
	recs := make([]byte, 0, 100*OracleRecordSize)
	for i := range 100 {
		var b [OracleRecordSize]byte
		PutOracle(b[:], &Request{ID: uint64(i), Size: 1, Next: NoNext})
		recs = append(recs, b[:]...)
	}
	enc, _ := zstd.NewWriter(nil)
	// An unmarked zstd file cut short.
	plain := enc.EncodeAll(recs, nil)
	p := filepath.Join(dir, "cut.oracleGeneral.zst")
	os.WriteFile(p, plain[:len(plain)-3], 0o644)
	if _, err := readIDs(p, ""); !isRecordError(err) {
		t.Errorf("unmarked zstd trace cut short: %v, want a record error", err)
	}
	// A marked file whose stream ends cleanly with a torn record.
	marked := append(markerBytes(t), enc.EncodeAll(recs[:len(recs)-5], nil)...)
	p2 := filepath.Join(dir, "torn.oracleGeneral.zst")
	os.WriteFile(p2, marked, 0o644)
	_, err := readIDs(p2, "")
	var re *RecordError
	if !errors.As(err, &re) || re.Record != 100 {
		t.Errorf("marked file, clean end, torn record: %v, want record 100", err)
	}
	// A plain file with a torn record.
	p3 := filepath.Join(dir, "torn.oracleGeneral")
	os.WriteFile(p3, recs[:len(recs)-1], 0o644)
	if _, err := readIDs(p3, ""); !isRecordError(err) {
		t.Errorf("plain file with a torn record: %v", err)
	}
	if warn.Len() != 0 {
		t.Errorf("warnings for files outside the rule: %q", warn.String())
	}
}

func isRecordError(err error) bool {
	var re *RecordError
	return errors.As(err, &re)
}

// markerBytes takes the marker frame from a recorder's file.
func markerBytes(t *testing.T) []byte {
	t.Helper()
	r, err := cachetrace.New(cachetrace.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	raw, err := os.ReadFile(r.Stats().Files[0])
	if err != nil {
		t.Fatal(err)
	}
	return raw[:cachetrace.MarkerLen]
}

// TestClosedRecordingReadsClean: a recorder that was closed leaves a
// complete file, read without a warning.
func TestClosedRecordingReadsClean(t *testing.T) {
	warn := captureWarnings(t)
	r, err := cachetrace.New(cachetrace.Options{Dir: t.TempDir(), Lossless: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		r.Record(fmt.Appendf(nil, "%d", i), 10)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	ids, err := readIDs(r.Stats().Files[0], "")
	if err != nil || len(ids) != 1000 || warn.Len() != 0 {
		t.Errorf("closed recording: %d records, %v, warnings %q", len(ids), err, warn.String())
	}
}
