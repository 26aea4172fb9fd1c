package cachetrace

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// RecordSize is the size of one oracleGeneral record.
const RecordSize = 24

// BatchRecords is how many records a shard buffers before it hands the
// buffer to the writer.
const BatchRecords = 512

// Options configures a Recorder. The zero value records every request
// into cachetrace.000001.oracleGeneral.zst, ... in the current directory.
type Options struct {
	// Dir is the directory the trace files are written in; "" is the
	// current directory. It must exist.
	Dir string
	// Name is the files' base name: NAME.000001.oracleGeneral.zst; ""
	// is "cachetrace". A number whose file exists already is skipped,
	// so a restarted service never overwrites an earlier trace.
	Name string
	// Rate is the fraction of keys recorded, in (0, 1]; 0 means 1.
	Rate float64
	// MaxFileBytes starts a new file once this many compressed bytes
	// are written to the current one; 0 means 256 MiB.
	MaxFileBytes int64
	// FlushInterval is how often buffered records are compressed and
	// written out, which bounds what a crash loses; 0 means 1s.
	FlushInterval time.Duration
	// Shards is the number of record buffers, rounded up to a power of
	// two; 0 means four per GOMAXPROCS.
	Shards int
	// Compact writes the files with klauspost's general zstd encoder,
	// which also finds the keys requested again: the files are smaller
	// than the default's on most traffic, but the writer's CPU per record
	// is several times higher, so a busy service drops records sooner.
	// The default encoding (frame.go) copies 12 or 16 bytes per record
	// into standard zstd frames and writes that much.
	Compact bool
	// Lossless makes a Record whose buffer is full wait for the writer
	// when it is behind, instead of dropping the buffer's records. For
	// offline tools and tests; a service keeps it false, so that a slow
	// disk never slows its requests.
	Lossless bool
}

// Stats counts what a Recorder did. Requests that the sampling rate
// leaves out are not counted: that would cost them more than a hash.
type Stats struct {
	// Written is the number of records written to files. The writer
	// buffers up to one FlushInterval of them before the file has them;
	// after a write error (Err) the buffered ones may be missing.
	Written int64
	// Dropped is the number of sampled requests not written: their
	// buffer was full while the writer was behind, or the writer had
	// failed (Err).
	Dropped int64
	// Files lists the files begun, in order.
	Files []string
}

// shard is one record buffer and its lock, padded to keep two shards off
// one cache line.
type shard struct {
	mu     sync.Mutex
	n      int
	closed bool
	buf    []byte
	_      [64]byte
}

// Recorder writes sampled requests to rotated zstd oracleGeneral files.
// Its methods are safe for concurrent use.
type Recorder struct {
	opts   Options
	limit  uint64 // a key is recorded when sampleHash(h) <= limit
	mask   uint64
	stride uint64 // shards per processor: processor p's first shard is p*stride
	shards []shard
	clock  atomic.Uint32 // Unix seconds, set by the writer
	now    func() time.Time

	free chan []byte // empty buffers
	full chan []byte // buffers for the writer
	stop chan struct{}
	done chan struct{}

	written, dropped atomic.Int64

	mu      sync.Mutex // guards files, err and closing
	files   []string
	err     error
	closing bool

	// Owned by the writer goroutine.
	f       *os.File
	codec   codec // nil once the file is closed
	seq     int
	scratch []byte
	older   [][]byte // full buffers taken out by flush
}

// A codec encodes a file's records after its marker frame.
type codec interface {
	write(entries []byte) error // entries: entrySize bytes per record
	flush() error               // write out what is buffered
	close() error               // end the stream and write it out
	size() int64                // the file's bytes, written or buffered
}

// New starts a Recorder and creates its first file, so that a directory
// that cannot be written is an error here and not a silent loss later.
func New(opts Options) (*Recorder, error) { return newRecorder(opts, time.Now) }

// newRecorder is New with the clock the records' times come from (tests
// give one that moves faster).
func newRecorder(opts Options, now func() time.Time) (*Recorder, error) {
	if opts.Rate == 0 {
		opts.Rate = 1
	}
	if !(opts.Rate > 0 && opts.Rate <= 1) {
		return nil, fmt.Errorf("cachetrace: Rate %v is not in (0, 1]", opts.Rate)
	}
	if opts.Name == "" {
		opts.Name = "cachetrace"
	}
	if opts.Dir == "" {
		opts.Dir = "."
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = 256 << 20
	}
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = time.Second
	}
	if opts.Shards <= 0 {
		opts.Shards = 4 * runtime.GOMAXPROCS(0)
	}
	n := 1 << bits.Len(uint(min(max(opts.Shards, 1), 1<<12)-1))
	r := &Recorder{
		opts:    opts,
		limit:   math.MaxUint64,
		mask:    uint64(n - 1),
		stride:  uint64(max(n/runtime.GOMAXPROCS(0), 1)),
		shards:  make([]shard, n),
		free:    make(chan []byte, spares(n)),
		full:    make(chan []byte, n+spares(n)),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		scratch: make([]byte, 0, BatchRecords*entrySize),
		older:   make([][]byte, 0, n+spares(n)),
	}
	if opts.Rate < 1 {
		r.limit = uint64(opts.Rate * (1 << 64))
	}
	for i := range r.shards {
		r.shards[i].buf = newBuffer()
	}
	for range spares(n) {
		r.free <- newBuffer()
	}
	r.now = now
	r.clock.Store(uint32(now().Unix()))
	if err := r.openNext(); err != nil {
		return nil, err
	}
	go r.writer()
	return r, nil
}

// newBuffer makes a shard buffer: BatchRecords entries (time, id, size),
// without the next-request field, which is -1 in every record and is the
// codecs' to add.
func newBuffer() []byte { return make([]byte, BatchRecords*entrySize) }

// spares is the number of empty buffers beside the shards' own: the
// writer may lag by that many batches before records are dropped.
func spares(shards int) int { return 2*shards + 8 }

// sampleHash spreads the key hash again, so that the sampled keys are not
// the ones with small ids.
func sampleHash(h uint64) uint64 { return bits.RotateLeft64(h*0x9e3779b97f4a7c15, 29) }

// Record records one request for key, of size bytes (clamped to
// 0..2^32-1), if key is sampled. It never blocks on the disk and does not
// allocate; after Close it does nothing.
func (r *Recorder) Record(key []byte, size int) {
	h := hashKey(key)
	if sampleHash(h) > r.limit {
		return
	}
	// The processor's own shard first, so that a busy one has free
	// neighbours of its own (stride of them) before another processor's.
	p := uint64(procPin())
	procUnpin()
	i := p * r.stride & r.mask
	s := &r.shards[i]
	if !s.mu.TryLock() {
		// Busy: take the first free neighbour, or wait for this one.
		for j := uint64(1); ; j++ {
			if j > r.mask {
				s.mu.Lock()
				break
			}
			if t := &r.shards[(i+j)&r.mask]; t.mu.TryLock() {
				s = t
				break
			}
		}
	}
	if s.closed {
		s.mu.Unlock()
		return
	}
	putEntry(s.buf[s.n*entrySize:s.n*entrySize+entrySize], r.clock.Load(), h, uint32(min(max(size, 0), math.MaxUint32)))
	s.n++
	if s.n == BatchRecords {
		r.handOff(s)
	}
	s.mu.Unlock()
}

// handOff gives s's full buffer to the writer and takes an empty one, or
// drops the records when there is none (waits, when Lossless, until the
// writer returns one or the Recorder is closed).
func (r *Recorder) handOff(s *shard) {
	s.n = 0
	select {
	case nb := <-r.free:
		r.full <- s.buf // never blocks: full holds every buffer there is
		s.buf = nb
		return
	default:
	}
	if !r.opts.Lossless {
		r.dropped.Add(BatchRecords)
		return
	}
	select {
	case nb := <-r.free:
		r.full <- s.buf
		s.buf = nb
	case <-r.stop:
		r.dropped.Add(BatchRecords)
	}
}

// Stats returns the counts so far.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Stats{Written: r.written.Load(), Dropped: r.dropped.Load(), Files: append([]string(nil), r.files...)}
}

// Err returns the first write error, after which records are dropped.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close writes what is buffered, ends the current file and stops the
// writer. Records after Close are dropped. It returns the first write
// error.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closing {
		r.mu.Unlock()
		<-r.done
		return r.Err()
	}
	r.closing = true
	r.mu.Unlock()
	close(r.stop)
	<-r.done
	return r.Err()
}

// writer compresses and writes full buffers, ticks the clock, flushes the
// shards every FlushInterval and rotates files.
func (r *Recorder) writer() {
	defer close(r.done)
	tick := time.NewTicker(min(r.opts.FlushInterval, 250*time.Millisecond))
	defer tick.Stop()
	lastFlush := r.now()
	for {
		select {
		case b := <-r.full:
			r.write(b)
			r.free <- b
		case <-tick.C:
			now := r.now()
			r.clock.Store(uint32(now.Unix()))
			if now.Sub(lastFlush) >= r.opts.FlushInterval {
				r.flush(false)
				lastFlush = now
			}
		case <-r.stop:
			r.flush(true)
			r.fail(r.closeFile())
			return
		}
	}
}

// flush writes every full buffer and the partial ones of the shards and
// flushes the zstd stream to the file. A periodic flush skips a shard that
// is busy (a Lossless Record may hold it while it waits for this
// goroutine); the last one, after stop is closed (no Record waits any
// more), takes every shard and closes it.
//
// A shard's partial buffer is newer than the full buffers waiting at the
// moment it is taken (a shard hands its buffer off under its lock) and
// older than any that arrive after: those waiting are taken out under the
// lock, and written before it, so that one shard's records keep their
// order.
func (r *Recorder) flush(last bool) {
	for i := range r.shards {
		s := &r.shards[i]
		if last {
			s.mu.Lock()
		} else if !s.mu.TryLock() {
			continue
		}
		r.older = r.older[:0]
	take:
		for {
			select {
			case b := <-r.full:
				r.older = append(r.older, b)
			default:
				break take
			}
		}
		r.scratch = append(r.scratch[:0], s.buf[:s.n*entrySize]...)
		s.n = 0
		s.closed = s.closed || last
		s.mu.Unlock()
		for _, b := range r.older {
			r.write(b)
			r.free <- b
		}
		r.write(r.scratch)
	}
	r.drainFull()
	if r.codec != nil && r.Err() == nil {
		r.fail(r.codec.flush())
	}
}

func (r *Recorder) drainFull() {
	for {
		select {
		case b := <-r.full:
			r.write(b)
			r.free <- b
		default:
			return
		}
	}
}

// write encodes b's entries into the current file, starting the next
// file when this one has reached MaxFileBytes.
func (r *Recorder) write(b []byte) {
	n := int64(len(b) / entrySize)
	if n == 0 {
		return
	}
	if r.Err() != nil || r.codec == nil {
		r.dropped.Add(n)
		return
	}
	if err := r.codec.write(b); err != nil {
		r.fail(err)
		r.dropped.Add(n)
		return
	}
	r.written.Add(n)
	if r.codec.size() >= r.opts.MaxFileBytes {
		if err := r.closeFile(); err != nil {
			r.fail(err)
			return
		}
		r.fail(r.openNext())
	}
}

func (r *Recorder) fail(err error) {
	if err == nil {
		return
	}
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
}

// openNext creates the next file that does not exist yet and writes the
// marker frame at its start.
func (r *Recorder) openNext() error {
	for {
		r.seq++
		name := filepath.Join(r.opts.Dir, fmt.Sprintf("%s.%06d.oracleGeneral.zst", r.opts.Name, r.seq))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("cachetrace: %w", err)
		}
		if _, err := f.Write(marker); err != nil {
			f.Close()
			return fmt.Errorf("cachetrace: write %s: %w", name, err)
		}
		if r.opts.Compact {
			c, err := newCompactCodec(f, int64(len(marker)))
			if err != nil {
				f.Close()
				return err
			}
			r.codec = c
		} else {
			r.codec = newFrameCodec(f, int64(len(marker)))
		}
		r.f = f
		r.mu.Lock()
		r.files = append(r.files, name)
		r.mu.Unlock()
		return nil
	}
}

// closeFile ends the zstd frame and closes the current file.
func (r *Recorder) closeFile() error {
	if r.codec == nil {
		return nil
	}
	f := r.f
	err := r.codec.close() // names the file
	r.codec, r.f = nil, nil
	if serr := f.Sync(); err == nil && serr != nil {
		err = fmt.Errorf("cachetrace: close %s: %w", f.Name(), serr)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("cachetrace: close %s: %w", f.Name(), cerr)
	}
	return err
}
