package trace

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"

	"github.com/cachebench/cachebench/internal/fileio"
	"github.com/cachebench/cachebench/internal/fit"
)

// ErrEmpty is returned (wrapped) by Normalize for a trace with no request.
var ErrEmpty = errors.New("trace has no requests")

// Summary describes a trace.
type Summary struct {
	// Requests is the number of requests.
	Requests int64 `json:"requests"`
	// Distinct is the number of distinct objects.
	Distinct int `json:"distinct"`
	// Bytes is the sum of the sizes of all requests.
	Bytes int64 `json:"bytes"`
	// DistinctBytes is the sum of each object's size at its first request.
	DistinctBytes int64 `json:"distinct_bytes"`
	// MaxSize is the largest object size requested.
	MaxSize uint32 `json:"max_size"`
}

// MeanObjectSize is DistinctBytes / Distinct.
func (s Summary) MeanObjectSize() float64 {
	if s.Distinct == 0 {
		return 0
	}
	return float64(s.DistinctBytes) / float64(s.Distinct)
}

// Normalized is a trace rewritten as a file of NormalizedRecordSize-byte
// records whose object IDs are dense (0..Distinct-1, in order of first
// request) and whose Next fields are computed, so that it can be replayed
// many times fast and fed to the optimal policy.
//
// The file has no name while it is read: on Linux it is created unnamed
// (O_TMPFILE), elsewhere it is unlinked as soon as it is created, and
// every reader reads it through the one open descriptor. A process that
// dies without running its defers (SIGKILL, the OOM killer, a panic in a
// cache) then leaves nothing behind: the kernel frees the file with the
// descriptor. Only where an open file cannot be unlinked (Windows) does
// it keep its name until Close.
type Normalized struct {
	Summary
	// f is the file, shared by every reader: they read it with ReadAt
	// (pread), which needs no shared offset and is safe concurrently.
	f *os.File
	// named is the file's path while it still has one (where it could
	// not be unlinked when created); Close removes it.
	named string
	// ctx, if set (WithContext), ends the reads of every Open.
	ctx context.Context
}

// Open returns a reader over the normalized file. Readers are
// independent, and several may read at once (one per replay job).
func (n *Normalized) Open() (*File, error) {
	// The file is written here: no compressed magic to look for (the
	// first record's bytes could mimic one).
	sr := io.NewSectionReader(n.f, 0, n.Requests*NormalizedRecordSize)
	f := &File{Reader: newNormalizedReader(n.f.Name(), newBufReader(sr)), f: nopCloser{}}
	if n.ctx != nil {
		f.Reader = Cancellable(n.ctx, f.Reader)
	}
	return f, nil
}

// blockRecords is how many records Blocks hands out at a time.
const blockRecords = 1 << 14

// Blocks calls fn with the normalized records in order, a block of whole
// records (NormalizedRecordSize bytes each, decoded with
// NormalizedFields) at a time, valid until fn returns, until the last one or
// an error from fn. It is Open's fast path for a replay that reads the
// records itself: no call per record, the file read straight into one
// buffer. Once n's context (WithContext) is cancelled it stops between
// blocks with the context's error.
func (n *Normalized) Blocks(fn func(block []byte) error) error {
	buf := make([]byte, blockRecords*NormalizedRecordSize)
	for start := int64(0); start < n.Requests; start += blockRecords {
		if n.ctx != nil {
			if err := n.ctx.Err(); err != nil {
				return err
			}
		}
		b := buf[:min(n.Requests-start, blockRecords)*NormalizedRecordSize]
		if _, err := n.f.ReadAt(b, start*NormalizedRecordSize); err != nil {
			return fmt.Errorf("read %s at record %d: %w", n.f.Name(), start+1, err)
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// nopCloser is the closer of a reader over the shared file, which Close
// of the Normalized closes once every reader is done.
type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// WithContext returns n whose readers (Open) stop with ctx's error once
// ctx is cancelled, so that every replay of a sweep honours Ctrl-C
// without each replay function taking a context of its own. It shares
// n's file: Close one of the two, once both are no longer read.
func (n *Normalized) WithContext(ctx context.Context) *Normalized {
	c := *n
	c.ctx = ctx
	return &c
}

// Close closes the normalized file, which frees it, and removes its name
// where it kept one.
func (n *Normalized) Close() error {
	err := n.f.Close()
	if n.named != "" {
		if rerr := os.Remove(n.named); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}

// tempBase is the destination name fileio.CreateTemp derives the
// normalized file's temp name from where it cannot be unnamed.
const tempBase = "cachebench-trace.oracleGeneral"

// MaxObjects is the most distinct objects a normalized copy numbers: the
// lab's policies index their arrays by an int32 object number.
const MaxObjects = math.MaxInt32

// NormalizeBytesPerObject is the memory Normalize holds per distinct
// object: the slots of the table from ID to dense ID while writing (idMap:
// 48 B at most, while it doubles), then an 8-byte last-request position
// for the backward pass.
const NormalizeBytesPerObject = 48

// Normalize streams src into a new file in dir (the system temp dir when
// dir is ""). Memory is proportional to the distinct objects, never to the
// trace length: one table from ID to dense ID while writing, one slice of
// last-request positions for the backward pass. The copy is bounded by what
// the machine has (fit.Current of dir): a small compressed file can hold
// billions of requests (673 KB of zstd, 20 GB of zeros), so the copy
// stops with a *fit.TooBigError once its NormalizedRecordSize bytes per
// request would pass the free disk of dir, or its maps the available
// memory, instead of filling the disk.
func Normalize(src Reader, dir, name string) (*Normalized, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	return normalizeWithin(src, dir, name, fit.Current(dir))
}

// normalizeWithin is Normalize bounded by lim.
func normalizeWithin(src Reader, dir, name string, lim fit.Limits) (_ *Normalized, err error) {
	n, err := createUnnamed(dir, "normalized trace")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			n.Close()
		}
	}()
	f := n.f
	sum, err := writeDense(src, f, name, dir, lim)
	if err != nil {
		return nil, err
	}
	if sum.Requests == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrEmpty)
	}
	if err := fillNextDense(f, sum.Requests, sum.Distinct); err != nil {
		return nil, err
	}
	n.Summary = sum
	return n, nil
}

// createUnnamed creates the file of a Normalized, without a name where it
// can (see Normalized), in dir (the system temp dir when ""); what names
// it in errors.
func createUnnamed(dir, what string) (*Normalized, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	f, named, err := fileio.CreateTemp(dir, tempBase)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", what, err)
	}
	if named != "" && os.Remove(named) == nil {
		// Named (no O_TMPFILE here, or not on this file system), but a
		// Unix system can unlink an open file: nothing is left to leak.
		named = ""
	}
	return &Normalized{f: f, named: named}, nil
}

// writeDense writes src to f with dense IDs, within lim (Normalize).
func writeDense(src Reader, f *os.File, name, dir string, lim fit.Limits) (Summary, error) {
	var sum Summary
	dense := newIDMap()
	err := writeRecords(src, f, NormalizedRecordSize, putNormalized, func(q *Request) error {
		if sum.Requests%checkEvery == 0 {
			if err := withinLimits(sum.Requests, dense.Len(), name, dir, lim); err != nil {
				return err
			}
		}
		id, added := dense.number(q.ID)
		if added {
			if id >= MaxObjects {
				return fmt.Errorf("%s: more than %d distinct objects, the most a normalized copy numbers (--sample replays fewer)", name, MaxObjects)
			}
			sum.DistinctBytes += int64(q.Size)
		}
		sum.Requests++
		sum.Bytes += int64(q.Size)
		sum.MaxSize = max(sum.MaxSize, q.Size)
		q.ID, q.Next = id, NoNext
		return nil
	})
	sum.Distinct = dense.Len()
	return sum, err
}

// copyRecords writes every request of src to f as oracleGeneral records,
// each rewritten first by edit when it is set; an error of edit stops the
// copy.
func copyRecords(src Reader, f *os.File, edit func(q *Request) error) error {
	return writeRecords(src, f, OracleRecordSize, PutOracle, edit)
}

// writeRecords is copyRecords into records of width bytes encoded by put.
func writeRecords(src Reader, f *os.File, width int, put func(b []byte, q *Request), edit func(q *Request) error) error {
	bw := bufio.NewWriterSize(f, readBuffer)
	rec := make([]byte, width)
	var q Request
	for {
		err := src.Next(&q)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if edit != nil {
			if err := edit(&q); err != nil {
				return err
			}
		}
		put(rec, &q)
		if _, err := bw.Write(rec); err != nil {
			return fileio.WriteErr(f.Name(), err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fileio.WriteErr(f.Name(), err)
	}
	return nil
}

// FillNext sets the Next field of every record of the oracleGeneral file
// f (n records) by reading it backwards in blocks and remembering where
// each object was requested last; distinctHint sizes that map.
func FillNext(f *os.File, n int64, distinctHint int) error {
	return fillNext(context.Background(), f, n, distinctHint)
}

// fillNext is FillNext, stopping between blocks once ctx is cancelled.
func fillNext(ctx context.Context, f *os.File, n int64, distinctHint int) error {
	last := make(map[uint64]int64, distinctHint)
	return backwards(ctx, f, n, OracleRecordSize, func(b []byte, start, end int64) {
		for i := end - 1; i >= start; i-- {
			r := b[(i-start)*OracleRecordSize:]
			id := binary.LittleEndian.Uint64(r[4:])
			next, ok := last[id]
			if !ok {
				next = NoNext
			}
			binary.LittleEndian.PutUint64(r[16:], uint64(next))
			last[id] = i
		}
	})
}

// fillNextDense is FillNext of a normalized copy, whose IDs are dense
// (0..distinct-1, as writeDense writes them): the last request of each
// object is then a slice indexed by ID instead of a map, which makes the
// pass a few sequential reads and writes per request instead of two map
// operations.
func fillNextDense(f *os.File, n int64, distinct int) error {
	last := make([]int64, distinct)
	for i := range last {
		last[i] = NoNext
	}
	return backwards(context.Background(), f, n, NormalizedRecordSize, func(b []byte, start, end int64) {
		for i := end - 1; i >= start; i-- {
			r := b[(i-start)*NormalizedRecordSize:]
			id := binary.LittleEndian.Uint32(r)
			binary.LittleEndian.PutUint64(r[8:], uint64(last[id]))
			last[id] = i
		}
	})
}

// backwards rewrites the n records of width bytes of f in place, block by
// block from the end: fill gets each block's bytes, holding records
// start..end-1, to edit in place. It stops between blocks once ctx is
// cancelled.
func backwards(ctx context.Context, f *os.File, n int64, width int64, fill func(b []byte, start, end int64)) error {
	const block = 1 << 16
	buf := make([]byte, block*width)
	for end := n; end > 0; {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("fill next-request times of %s: stopped at record %d: %w", f.Name(), end, err)
		}
		start := max(end-block, 0)
		b := buf[:(end-start)*width]
		if _, err := f.ReadAt(b, start*width); err != nil {
			return fmt.Errorf("read %s at record %d: %w", f.Name(), start+1, err)
		}
		fill(b, start, end)
		if _, err := f.WriteAt(b, start*width); err != nil {
			return fmt.Errorf("write %s at record %d: %w", f.Name(), start+1, err)
		}
		end = start
	}
	return nil
}

// withinLimits refuses a normalized copy whose next checkEvery requests
// could pass lim: the disk the records take, or the memory of the
// objects' maps.
func withinLimits(requests int64, objects int, name, dir string, lim fit.Limits) error {
	what := "the normalized copy of " + name
	so := fmt.Sprintf("%d requests of %d objects read so far, the trace not yet at its end", requests, objects)
	if disk := fit.Mul(requests+checkEvery, NormalizedRecordSize); lim.DiskKnown && disk > lim.FreeDisk {
		return &fit.TooBigError{What: what, Resource: "disk", Estimate: disk, Limit: lim.FreeDisk,
			Detail:      fmt.Sprintf("%d B per request; %s", NormalizedRecordSize, so),
			LimitSource: "free on the file system of " + dir}
	}
	if mem := fit.Mul(int64(objects)+checkEvery, NormalizeBytesPerObject); lim.MemoryKnown && mem > lim.Memory {
		return &fit.TooBigError{What: what, Resource: "memory", Estimate: mem, Limit: lim.Memory,
			Detail: fmt.Sprintf("%d B per object; %s", NormalizeBytesPerObject, so), LimitSource: lim.MemorySource}
	}
	return nil
}
