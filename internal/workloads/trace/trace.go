// Package trace reads and writes cache request traces: the formats cache
// research publishes its traces in (libCacheSim's oracleGeneral binary
// records, the ARC and LIRS block traces, Twitter's cache-trace CSV) and
// plain key-per-line text, gzip or zstd compressed or not, always
// streamed. It also makes synthetic traces (Generate) and rewrites any
// trace into a dense, annotated oracleGeneral file (Normalize) that the
// hit-ratio lab replays.
//
// Every reader yields Request values through Reader.Next and reports a
// malformed or truncated record as a *RecordError carrying its 1-based
// record number (the line number for text formats).
//
// Imports: nothing of cachebench; hitratio and the commands import it.
package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Request is one access of a trace.
type Request struct {
	// Time is the request's timestamp as the trace gives it (seconds for
	// Twitter, the record index for formats without time).
	Time uint32
	// ID identifies the object: the number itself for numeric formats,
	// a 64-bit xxhash of the key for string keys.
	ID uint64
	// Size is the object's size in bytes (DefaultSize where the format
	// has no sizes).
	Size uint32
	// Next is the index of the next request to the same object, or
	// NoNext. Only oracleGeneral carries it; Normalize computes it.
	Next int64
}

// NoNext marks a request whose object is never requested again.
// oracleGeneral writers also use math.MaxInt64; readers map it to NoNext.
const NoNext int64 = -1

// DefaultSize is the object size given to requests of formats that record
// none (ARC, LIRS, text): every object weighs the same, so byte and object
// hit ratios are equal there.
const DefaultSize = 64

// Reader yields the requests of a trace in order. Next fills q and
// returns io.EOF after the last request, or a *RecordError.
type Reader interface {
	Next(q *Request) error
}

// Format names a trace format.
type Format string

// The formats Open understands.
const (
	Oracle  Format = "oracle"  // libCacheSim oracleGeneral: 24-byte little-endian records
	ARC     Format = "arc"     // "start count [ignored] [request]" lines, count blocks from start
	LIRS    Format = "lirs"    // one block number per line ("*" lines skipped)
	Twitter Format = "twitter" // timestamp,key,key size,value size,client,op,TTL
	Text    Format = "text"    // one key per line, hashed
)

var formats = map[Format]string{
	Oracle:  "libCacheSim oracleGeneral binary (u32 time, u64 id, u32 size, i64 next; little-endian)",
	ARC:     "ARC block traces: 'start count ...' lines, each the count blocks from start",
	LIRS:    "LIRS block traces: one block number per line",
	Twitter: "Twitter cache-trace CSV: timestamp,key,key size,value size,client,op,TTL",
	Text:    "plain text: one key per line (keys hashed with xxhash64)",
}

// Formats returns the format names, sorted.
func Formats() []string {
	out := make([]string, 0, len(formats))
	for f := range formats {
		out = append(out, string(f))
	}
	sort.Strings(out)
	return out
}

// ErrUnknownFormat is returned (wrapped) for a format name Open does not
// know, or a file whose format cannot be told from its name.
var ErrUnknownFormat = errors.New("unknown trace format")

// RecordError reports a malformed or truncated record.
type RecordError struct {
	Path   string
	Record int64 // 1-based; the line number for text formats
	Err    error
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("%s: record %d: %v", e.Path, e.Record, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// formatAliases are other spellings ParseFormat accepts: libCacheSim's
// own name of the format, which the documentation uses.
var formatAliases = map[string]Format{"oraclegeneral": Oracle}

// ParseFormat checks a format name, in any case; "" or "auto" means "from
// the file name".
func ParseFormat(s string) (Format, error) {
	if s == "" || s == "auto" {
		return "", nil
	}
	if f, ok := formatAliases[strings.ToLower(s)]; ok {
		return f, nil
	}
	if _, ok := formats[Format(strings.ToLower(s))]; ok {
		return Format(strings.ToLower(s)), nil
	}
	if _, ok := formats[Format(s)]; !ok {
		return "", fmt.Errorf("%w %q (valid: auto, %s)", ErrUnknownFormat, s, strings.Join(Formats(), ", "))
	}
	return Format(s), nil
}

// FormatOf guesses a format from a file name, ignoring a .gz or .zst
// suffix: .oracleGeneral/.oracle/.bin, .arc, .lirs, .csv (Twitter),
// .txt/.keys.
func FormatOf(path string) (Format, error) {
	name := strings.ToLower(filepath.Base(path))
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst")
	switch filepath.Ext(name) {
	case ".oraclegeneral", ".oracle", ".bin":
		return Oracle, nil
	case ".arc":
		return ARC, nil
	case ".lirs", ".trc":
		return LIRS, nil
	case ".csv":
		return Twitter, nil
	case ".txt", ".keys":
		return Text, nil
	}
	return "", fmt.Errorf("%s: %w: cannot tell it from the name (give --trace-format: %s)", path, ErrUnknownFormat, strings.Join(Formats(), ", "))
}

// File is an open trace: a Reader over a possibly compressed file.
type File struct {
	Reader
	f    *os.File
	zdec *zstd.Decoder
	gz   *gzip.Reader
}

// Close releases the decompressor and the file.
func (t *File) Close() error {
	if t.zdec != nil {
		t.zdec.Close()
	}
	if t.gz != nil {
		t.gz.Close()
	}
	return t.f.Close()
}

// readBuffer is the read-ahead of every trace file; large enough that a
// read system call is amortised over thousands of records.
const readBuffer = 1 << 20

// Open opens path as a trace of format f (or the format FormatOf gives
// when f is ""), decompressing gzip or zstd found by their magic bytes.
func Open(path string, f Format) (*File, error) {
	if f == "" {
		var err error
		if f, err = FormatOf(path); err != nil {
			return nil, err
		}
	}
	if _, ok := formats[f]; !ok {
		return nil, fmt.Errorf("%s: %w %q", path, ErrUnknownFormat, f)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	t := &File{f: fh}
	br := bufio.NewReaderSize(fh, readBuffer)
	r, err := t.decompress(path, br)
	if err != nil {
		fh.Close()
		return nil, err
	}
	t.Reader = newReader(path, f, r)
	return t, nil
}

func (t *File) decompress(path string, br *bufio.Reader) (io.Reader, error) {
	magic, _ := br.Peek(4)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		t.gz = gz
		return gz, nil
	case len(magic) == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd:
		zd, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("%s: zstd: %w", path, err)
		}
		t.zdec = zd
		return zd, nil
	}
	return br, nil
}

func newReader(path string, f Format, r io.Reader) Reader {
	switch f {
	case Oracle:
		return NewOracleReader(path, r)
	case ARC:
		return &arcReader{lines: newLines(path, r)}
	case LIRS:
		return &lirsReader{lines: newLines(path, r)}
	case Twitter:
		return &twitterReader{lines: newLines(path, r)}
	default:
		return &textReader{lines: newLines(path, r)}
	}
}
