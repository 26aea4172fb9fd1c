// Package trace reads and writes cache request traces: the formats cache
// research publishes its traces in (libCacheSim's oracleGeneral, lcs,
// vscsi and twr binary records, the ARC and LIRS block traces, Twitter's
// cache-trace CSV, the cache2k, Scarab, Corda and CloudPhysics key-only
// binary traces, the AdaptSize and address text traces), CSV and TSV logs
// with their columns named (columns.go), and plain key-per-line text,
// gzip, zstd or xz compressed or not, always streamed; a chain of traces
// reads as one (chain.go). ComputeStats describes a trace (objects,
// one-hit wonders, reuse distances). It also makes synthetic traces
// (Generate), converts any trace to oracleGeneral, text or CSV (Convert),
// and rewrites any trace into a file of dense object numbers, sizes and
// next-request times (Normalize, dense.go) that the hit-ratio lab replays. Files a cachetrace recorder
// left with a torn end replay their complete records (torn.go).
//
// Every reader yields Request values through Reader.Next and reports a
// malformed or truncated record as a *RecordError carrying its 1-based
// record number (the line number for text formats).
package trace

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/cachebench/cachebench/cachetrace"
	"github.com/cachebench/cachebench/internal/fileio"
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
	Oracle       Format = "oracle"       // libCacheSim oracleGeneral: 24-byte little-endian records
	ARC          Format = "arc"          // "start count [ignored] [request]" lines, count blocks from start
	LIRS         Format = "lirs"         // one block number per line ("*" lines skipped)
	Twitter      Format = "twitter"      // timestamp,key,key size,value size,client,op,TTL
	Text         Format = "text"         // one key per line, hashed
	Cache2k      Format = "cache2k"      // big-endian int32 keys
	Scarab       Format = "scarab"       // big-endian int64 keys
	Corda        Format = "corda"        // big-endian int64 keys
	CloudPhysics Format = "cloudphysics" // big-endian uint32 keys
	AdaptSize    Format = "adaptsize"    // "time id size" lines
	Address      Format = "address"      // "op 0xADDRESS ..." lines
	LCS          Format = "lcs"          // libCacheSim's lcs: a header describing the records
	VSCSI        Format = "vscsi"        // libCacheSim's vscsi block traces
	TWR          Format = "twr"          // libCacheSim's twr (Twitter) binary
)

// formatInfo describes a format for help texts and tells the readers
// whether its records carry object sizes.
type formatInfo struct {
	help  string
	sized bool
}

var formats = map[Format]formatInfo{
	Oracle:       {"libCacheSim oracleGeneral binary (u32 time, u64 id, u32 size, i64 next; little-endian); also spelled oracleGeneral", true},
	ARC:          {"ARC block traces: 'start count ...' lines, each the count blocks from start", false},
	LIRS:         {"LIRS block traces: one block number per line, '*' lines (checkpoints) skipped", false},
	Twitter:      {"Twitter cache-trace CSV: timestamp,key,key size,value size,client,op,TTL", true},
	Text:         {"plain text: one key per line (keys hashed with xxhash64)", false},
	Cache2k:      {"cache2k binary: one big-endian int32 key per record, no header", false},
	Scarab:       {"Scarab Research binary: one big-endian int64 key per record", false},
	Corda:        {"R3 Corda binary: one big-endian int64 key per record", false},
	CloudPhysics: {"CloudPhysics binary: one big-endian uint32 key per record; also spelled cloud_physics, cloud-physics", false},
	AdaptSize:    {"AdaptSize text: 'time id size' lines, size in bytes (weighted); also spelled adapt_size, adapt-size", true},
	Address:      {"address traces (UCSD CSE240A): 'op 0xADDRESS ...' lines, the hex address is the key", false},
	CSV:          {"CSV log, columns named: csv[key=2,size=3,time=1,header] (id= for a numeric id; a column by number or header name)", false},
	TSV:          {"TSV log, columns named as for csv: tsv[key=1,size=2]", false},
	LCS:          {"libCacheSim lcs binary: a 1 KiB header that describes the little-endian records", true},
	VSCSI:        {"libCacheSim vscsi binary (VMware block traces, versions 1 and 2): block number and length", true},
	TWR:          {"libCacheSim twr binary (Twitter): u32 time, u64 id, key and value sizes, op, TTL", true},
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

// Help returns one line per format: its name and what a record is.
func Help() []string {
	var out []string
	for _, f := range Formats() {
		out = append(out, fmt.Sprintf("%-12s %s", f, formats[Format(f)].help))
	}
	return out
}

// Sized reports whether the records of f carry object sizes; without
// them every object weighs DefaultSize and byte and object hit ratios
// are equal.
func Sized(f Format) bool {
	if f == Chain {
		return true // its parts may be; unsized ones weigh DefaultSize each
	}
	if isColumnFormat(f) {
		c, err := parseColumns(f)
		return err == nil && c.sized
	}
	return formats[f].sized
}

// known checks that f is a format the readers have, with valid options.
func known(name string, f Format) error {
	if isColumnFormat(f) {
		if _, err := parseColumns(f); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	if _, ok := formats[f]; !ok {
		return fmt.Errorf("%s: %w %q", name, ErrUnknownFormat, f)
	}
	return nil
}

// ErrUnknownFormat is returned (wrapped) for a format name Open does not
// know, or a file whose format cannot be told from its name.
var ErrUnknownFormat = errors.New("unknown trace format")

// RecordError reports a malformed or truncated record.
type RecordError struct {
	Path   string
	Record int64 // 1-based; the line number for text formats; 0 for a file's header
	Err    error
}

func (e *RecordError) Error() string {
	if e.Record == 0 {
		return fmt.Sprintf("%s: header: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s: record %d: %v", e.Path, e.Record, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// lookupFormat finds a format by any of its documented spellings: case
// is ignored and so are '-' and '_' (cloud_physics, adapt-size), and
// oracleGeneral names oracle, as libCacheSim and Caffeine spell them.
func lookupFormat(s string) (Format, bool) {
	if f, ok := columnFormat(s); ok {
		return f, true
	}
	k := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(s))
	if k == "oraclegeneral" {
		k = string(Oracle)
	}
	_, ok := formats[Format(k)]
	return Format(k), ok
}

// ParseFormat checks a format name; "" or "auto" means "from the file name".
func ParseFormat(s string) (Format, error) {
	if s == "" || s == "auto" {
		return "", nil
	}
	f, ok := lookupFormat(s)
	if !ok {
		return "", fmt.Errorf("%w %q (valid: auto, %s)", ErrUnknownFormat, s, strings.Join(Formats(), ", "))
	}
	return f, known(s, f)
}

// ParseSpec splits a trace argument "FORMAT:FILE" into its format and
// path. An argument whose part before the first colon is not a format
// name is a path as a whole (format "", to be guessed from the name), so
// that paths with colons still work when no format is given.
func ParseSpec(arg string) (Format, string) {
	if name, path, ok := strings.Cut(arg, ":"); ok && path != "" {
		if f, known := lookupFormat(name); known {
			return f, path
		}
	}
	return "", arg
}

// FormatOf guesses a format from a file name, ignoring a .gz, .zst or .xz
// suffix: .oracleGeneral/.oracle/.bin, .arc, .lirs, .csv (Twitter),
// .txt/.keys, .tsv (key in column 1), .lcs, .vscsi, .twr; failing that, from the name of the directory the file is
// in when that is a format name (cache2k/web07.trace.xz, the layout in
// which Caffeine's simulator and cachebench's vendored traces keep them).
// When the name tells nothing and the path is no readable file (absent,
// a directory), the error says that instead (fileio.CheckInput).
func FormatOf(path string) (Format, error) {
	name := strings.ToLower(filepath.Base(path))
	for _, z := range []string{".gz", ".zst", ".xz"} {
		name = strings.TrimSuffix(name, z)
	}
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
	case ".tsv":
		return TSV, nil
	case ".lcs":
		return LCS, nil
	case ".vscsi":
		return VSCSI, nil
	case ".twr":
		return TWR, nil
	}
	if f, ok := lookupFormat(filepath.Base(filepath.Dir(path))); ok {
		return f, nil
	}
	if err := fileio.CheckInput(path); err != nil {
		return "", fmt.Errorf("open trace: %w", err)
	}
	return "", fmt.Errorf("%s: %w: cannot tell it from the name (give FORMAT:%s or --trace-format: %s)", path, ErrUnknownFormat, path, strings.Join(Formats(), ", "))
}

// File is an open trace: a Reader over a possibly compressed file.
type File struct {
	Reader
	f    io.Closer
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
// when f is ""), decompressing gzip, zstd or xz found by their magic
// bytes.
func Open(path string, f Format) (*File, error) {
	return OpenContext(context.Background(), path, f)
}

// OpenContext is Open through fileio.OpenInput: a FIFO's open and reads
// give up when ctx is cancelled; a socket, device or directory is refused.
func OpenContext(ctx context.Context, path string, f Format) (*File, error) {
	return OpenFS(ctx, nil, path, f)
}

// OpenFS is OpenContext reading name from fsys (the traces embedded in
// the binary), or from the operating system's files when fsys is nil.
func OpenFS(ctx context.Context, fsys fs.FS, name string, f Format) (*File, error) {
	if f == "" {
		var err error
		if f, err = FormatOf(name); err != nil {
			return nil, err
		}
	}
	if err := known(name, f); err != nil {
		return nil, err
	}
	var fh io.ReadCloser
	var err error
	if fsys == nil {
		fh, err = fileio.OpenInput(ctx, name)
	} else {
		fh, err = fsys.Open(name)
	}
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	t := &File{f: fh}
	br := newBufReader(fh)
	head, _ := br.Peek(cachetrace.MarkerLen)
	recorded := cachetrace.Marked(head)
	r, err := t.decompress(name, br)
	if err != nil {
		fh.Close()
		return nil, err
	}
	if recorded && f == Oracle {
		r = newTornTail(name, r, OracleRecordSize) // the torn-end rule (torn.go)
	}
	t.Reader = newReader(name, f, r)
	return t, nil
}

// xzMagic starts every xz stream.
var xzMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}

func (t *File) decompress(path string, br *bufio.Reader) (io.Reader, error) {
	magic, _ := br.Peek(len(xzMagic))
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		t.gz = gz
		return newGzipMembers(br, gz), nil
	case zstdStart(magic):
		zd, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("%s: zstd: %w", path, err)
		}
		t.zdec = zd
		return zd, nil
	case bytes.Equal(magic, xzMagic):
		return newXZ(path, br)
	}
	return br, nil
}

func newReader(path string, f Format, r io.Reader) Reader {
	switch f {
	case Oracle:
		return NewOracleReader(path, r)
	case Cache2k, CloudPhysics:
		return newBinaryReader(path, r, 4)
	case Scarab, Corda:
		return newBinaryReader(path, r, 8)
	case ARC:
		return &arcReader{lines: newLines(path, r)}
	case LIRS:
		return &lirsReader{lines: newLines(path, r)}
	case Twitter:
		return &twitterReader{lines: newLines(path, r)}
	case AdaptSize:
		return &adaptSizeReader{lines: newLines(path, r)}
	case Address:
		return &addressReader{lines: newLines(path, r)}
	case LCS:
		return newLCSReader(path, r)
	case VSCSI:
		return newVSCSIReader(path, r)
	case TWR:
		return newTWRReader(path, r)
	}
	switch {
	case isColumnFormat(f):
		return newColumnReader(path, f, r)
	default:
		return &textReader{lines: newLines(path, r)}
	}
}

// newBufReader is the read-ahead every trace is read through.
func newBufReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, readBuffer) }

// Source names one trace to read: a file on disk (FS nil) or in FS.
type Source struct {
	FS     fs.FS
	Path   string
	Format Format // "" guesses from the path
	// Name is how results name the trace; "" means the file name.
	Name string
	// Parts, for a Source of format Chain (NewChain), are the traces
	// replayed one after the other.
	Parts []Source
	// Gen, if set, makes the source a synthetic trace streamed as it is
	// drawn (GenReader) instead of a file: FS, Path and Format are unused.
	Gen *GenConfig
}

// Open opens the source; ctx is OpenContext's, and ends a Gen source's
// set-up and reads.
func (s Source) Open(ctx context.Context) (*File, error) {
	if s.Gen != nil {
		g, err := NewGenReader(ctx, *s.Gen)
		if err != nil {
			return nil, err
		}
		return &File{Reader: g, f: nopCloser{}}, nil
	}
	if s.Format == Chain {
		return openChain(ctx, s.Parts)
	}
	return OpenFS(ctx, s.FS, s.Path, s.Format)
}

// Check returns the error Open would give before reading a record: a
// format unknown or not told by the name, a file that does not exist or
// cannot be read, a directory, socket or device. A command checks its
// traces with it before work that comes ahead of the first read (run's
// DRAM-miss measurement), so that a mistyped path fails at once. A FIFO
// is not opened (that would wait for its writer); Open finds out.
func (s Source) Check() error {
	if s.Gen != nil {
		return s.Gen.Validate()
	}
	if s.Format == Chain {
		if len(s.Parts) == 0 {
			return fmt.Errorf("%s: a chain of no traces", s.Path)
		}
		for _, p := range s.Parts {
			if err := p.Check(); err != nil {
				return err
			}
		}
		return nil
	}
	f := s.Format
	if f == "" {
		var err error
		if f, err = FormatOf(s.Path); err != nil {
			return err
		}
	}
	if err := known(s.Path, f); err != nil {
		return err
	}
	if s.FS != nil {
		if _, err := fs.Stat(s.FS, s.Path); err != nil {
			return fmt.Errorf("open trace: %w", err)
		}
		return nil
	}
	if err := fileio.CheckInput(s.Path); err != nil {
		return fmt.Errorf("open trace: %w", err)
	}
	if fi, err := os.Stat(s.Path); err == nil && fi.Mode().IsRegular() {
		// Permission is the open's to tell (ACLs, a root that reads
		// anything): open it and close it again.
		fh, err := os.Open(s.Path)
		if err != nil {
			return fmt.Errorf("open trace: %w", err)
		}
		fh.Close()
	}
	return nil
}

// DisplayName is Name, or the file name of Path.
func (s Source) DisplayName() string {
	if s.Name != "" {
		return s.Name
	}
	if s.Format == Chain {
		return chainName(s.Parts)
	}
	return filepath.Base(s.Path)
}
