package trace

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/cachebench/cachebench/internal/fileio"
)

// Kinds of synthetic trace, with what each one tests.
var Kinds = map[string]string{
	"zipf":  "independent requests, object popularity zipf(alpha)",
	"loop":  "a cyclic scan over every key: LRU gets nothing once the loop exceeds the cache",
	"web":   "70% zipf(alpha) requests, 30% one-hit wonders never requested again",
	"shift": "zipf(alpha) whose hot set moves to other keys ten times over the trace",
	"mix":   "half zipf(alpha) over half the keys, half a loop over the other half (scan resistance)",
}

// KindNames returns the generator kinds, sorted.
func KindNames() []string {
	out := make([]string, 0, len(Kinds))
	for k := range Kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// GenConfig configures Generate.
type GenConfig struct {
	Kind     string
	Requests int64
	Keys     int
	Alpha    float64 // zipf exponent, > 0 (1 is classic zipf)
	Seed     uint64
	// SizeMin and SizeMax bound the object sizes, drawn per object
	// log-uniformly (many small objects, a few large ones); equal values
	// give one size.
	SizeMin, SizeMax uint32
}

// Validate checks the configuration.
func (c GenConfig) Validate() error {
	switch {
	case Kinds[c.Kind] == "":
		return fmt.Errorf("unknown trace kind %q (valid: %s)", c.Kind, strings.Join(KindNames(), ", "))
	case c.Requests <= 0:
		return fmt.Errorf("requests must be positive, got %d", c.Requests)
	case c.Keys < 2:
		return fmt.Errorf("keys must be at least 2, got %d", c.Keys)
	case c.Alpha <= 0 || math.IsNaN(c.Alpha) || c.Alpha > 10:
		return fmt.Errorf("zipf alpha must be in (0, 10], got %v", c.Alpha)
	case c.SizeMin == 0 || c.SizeMax < c.SizeMin:
		return fmt.Errorf("object sizes must satisfy 1 <= min <= max, got %d-%d", c.SizeMin, c.SizeMax)
	}
	return nil
}

// zipfSampler draws ranks 0..n-1 with P(r) ∝ 1/(r+1)^alpha by binary
// search over the cumulative distribution (any alpha > 0, unlike
// math/rand's Zipf, which needs s > 1). A search over the whole table of
// millions of keys is two dozen dependent cache misses, so the draw first
// looks up which ranks the draw's bucket of [0, 1) spans (at most
// maxZipfBuckets buckets, a power of two so that the bucket of u and its
// bounds are exact) and searches only those: the same rank as a search of
// the whole table, in a few cache lines of it.
type zipfSampler struct {
	cdf []float64
	// first[j] is the smallest rank whose cdf is at least j/buckets (n if
	// none), for j in 0..buckets.
	first   []int32
	buckets float64
}

// maxZipfBuckets bounds the bucket table: 4 MiB, a few keys per bucket
// at the tail of ten million keys.
const maxZipfBuckets = 1 << 20

func newZipf(ctx context.Context, n int, alpha float64) (*zipfSampler, error) {
	cdf := make([]float64, n)
	sum := 0.0
	for i := range cdf {
		if err := lookAt(ctx, i); err != nil {
			return nil, err
		}
		sum += math.Pow(float64(i+1), -alpha)
		cdf[i] = sum
	}
	for i := range cdf {
		if err := lookAt(ctx, i); err != nil {
			return nil, err
		}
		cdf[i] /= sum
	}
	m := 1
	for m < n && m < maxZipfBuckets {
		m *= 2
	}
	first := make([]int32, m+1)
	i := 0
	for j := range first {
		if err := lookAt(ctx, j); err != nil {
			return nil, err
		}
		t := float64(j) / float64(m)
		for i < n && cdf[i] < t {
			i++
		}
		first[j] = int32(i)
	}
	return &zipfSampler{cdf: cdf, first: first, buckets: float64(m)}, nil
}

func (z *zipfSampler) draw(rng *rand.Rand) int {
	return z.rank(rng.Float64())
}

// rank is the smallest rank whose cdf is at least u, in [0, 1): j/m <= u <
// (j+1)/m, so the rank lies in first[j]..first[j+1].
func (z *zipfSampler) rank(u float64) int {
	j := int(u * z.buckets)
	lo, hi := int(z.first[j]), int(z.first[j+1])
	r := lo + sort.SearchFloat64s(z.cdf[lo:min(hi+1, len(z.cdf))], u)
	return min(r, len(z.cdf)-1)
}

// generator yields the object IDs of one kind of trace.
type generator struct {
	c    GenConfig
	rng  *rand.Rand
	zipf *zipfSampler
	perm []uint64 // popularity rank -> object ID, so hot IDs are scattered
	i    int64
	loop uint64
	ohw  uint64 // next one-hit-wonder ID
}

// newGenerator builds the popularity table and permutation of c: seconds
// at hundreds of millions of keys. Each of its passes over the keys looks
// at ctx every checkEvery keys, so a cancel stops it within a few
// milliseconds wherever it is.
func newGenerator(ctx context.Context, c GenConfig) (*generator, error) {
	rng := rand.New(rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15))
	n := c.Keys
	if c.Kind == "mix" {
		n = c.Keys / 2
	}
	zipf, err := newZipf(ctx, n, c.Alpha)
	if err != nil {
		return nil, err
	}
	g := &generator{c: c, rng: rng, zipf: zipf, ohw: uint64(c.Keys)}
	g.perm = make([]uint64, c.Keys)
	for i := range g.perm {
		if err := lookAt(ctx, i); err != nil {
			return nil, err
		}
		g.perm[i] = uint64(i)
	}
	// Fisher-Yates with the draws rng.Shuffle makes (Uint64N(i+1) from
	// the top down), so a seed gives the traces it gave before, with a
	// look at ctx between blocks, which Shuffle has no way to take.
	for i := len(g.perm) - 1; i > 0; i-- {
		if err := lookAt(ctx, i); err != nil {
			return nil, err
		}
		j := rng.Uint64N(uint64(i + 1))
		g.perm[i], g.perm[j] = g.perm[j], g.perm[i]
	}
	return g, nil
}

func (g *generator) next() uint64 {
	k := uint64(g.c.Keys)
	defer func() { g.i++ }()
	switch g.c.Kind {
	case "loop":
		return uint64(g.i) % k
	case "web":
		if g.rng.Float64() < 0.3 {
			g.ohw++
			return g.ohw - 1
		}
	case "shift":
		phase := uint64(g.i * 10 / g.c.Requests)
		return g.perm[(uint64(g.zipf.draw(g.rng))+phase*k/10)%k]
	case "mix":
		if g.rng.IntN(2) == 0 {
			g.loop++
			return k/2 + (g.loop-1)%(k-k/2)
		}
	}
	return g.perm[g.zipf.draw(g.rng)]
}

// sizeOf gives an object its size: log-uniform in [SizeMin, SizeMax],
// fixed per object by a hash of its ID and the seed.
func (c GenConfig) sizeOf(id uint64) uint32 {
	if c.SizeMin == c.SizeMax {
		return c.SizeMin
	}
	h := (id + c.Seed) * 0x9e3779b97f4a7c15
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	u := float64(h>>11) / (1 << 53)
	lo, hi := math.Log(float64(c.SizeMin)), math.Log(float64(c.SizeMax))
	return uint32(math.Min(math.Exp(lo+u*(hi-lo)), float64(c.SizeMax)))
}

// Estimate is what Generate needs: the disk of the raw records (twice
// that for a compressed output, whose raw records are kept in a temp file
// while the compressed copy is written, which is at most as large), and
// the memory of FillNext's map from object to last request, about
// mapBytesPerObject per distinct object, with the popularity permutation
// and the zipf table (16 B per key) and the buffers.
func (c GenConfig) Estimate(compressed bool) (disk, memory int64) {
	raw := satMul(c.Requests, OracleRecordSize)
	disk = raw
	if compressed {
		disk = satAdd(raw, raw)
	}
	distinct := int64(c.Keys)
	if c.Kind == "web" {
		distinct = satAdd(distinct, c.Requests*3/10) // the one-hit wonders
	}
	memory = satAdd(satMul(distinct, mapBytesPerObject), satMul(int64(c.Keys), 16), 4<<20)
	return disk, memory
}

// mapBytesPerObject is the memory of one entry of a map[uint64]int64 with
// its share of free slots (a Go map doubles as it grows: 16 B of key and
// value, a control byte, and up to half the table empty).
const mapBytesPerObject = 40

func satMul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

func satAdd(vs ...int64) int64 {
	var s int64
	for _, v := range vs {
		if v > math.MaxInt64-s {
			return math.MaxInt64
		}
		s += v
	}
	return s
}

// Compressed reports whether Generate compresses the trace written to
// path: zstd for ".zst", gzip for ".gz", xz for ".xz".
func Compressed(path string) bool {
	return strings.HasSuffix(path, ".zst") || strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".xz")
}

// Generate writes a synthetic trace of kind c.Kind to path as
// oracleGeneral (zstd, gzip or xz compressed when path ends in .zst, .gz
// or .xz), with the Next fields filled in, by the output rule of package
// fileio: the file appears complete or not at all, written to an unnamed
// temp file (Linux) beside it and renamed over it, so neither Ctrl-C (ctx)
// nor SIGKILL leaves a partial file or a temp file behind. A device or
// FIFO gets the finished trace copied into it.
func Generate(ctx context.Context, c GenConfig, path string) (err error) {
	if err := c.Validate(); err != nil {
		return err
	}
	_, err = writeOracleFile(ctx, path, c.Keys, func(f *os.File) (int64, error) {
		return c.Requests, writeSynthetic(ctx, c, f)
	})
	return err
}

// writeOracleFile writes the oracleGeneral records that write puts into
// its file to path, by Generate's output rule, then fills in their Next
// fields and compresses them by path's suffix. write returns how many
// records it wrote; distinctHint sizes the next-request map.
func writeOracleFile(ctx context.Context, path string, distinctHint int, write func(*os.File) (int64, error)) (_ int64, err error) {
	out, err := fileio.Create(path)
	if err != nil {
		return 0, err
	}
	defer out.Abort()
	raw := out.File
	if Compressed(path) {
		// The raw records, rewritten in place by FillNext, go to a temp
		// file of their own that is never named.
		f, name, err := fileio.CreateTemp(out.TempDir(), filepath.Base(path)+".raw")
		if err != nil {
			return 0, fmt.Errorf("create temp file for %s: %w", path, err)
		}
		defer func() {
			f.Close()
			if name != "" {
				os.Remove(name)
			}
		}()
		raw = f
	}
	n, err := write(raw)
	if err != nil {
		return n, err
	}
	if err := fillNext(ctx, raw, n, distinctHint); err != nil {
		return n, err
	}
	if Compressed(path) {
		if err := compressTo(ctx, raw, out.File, path); err != nil {
			return n, err
		}
	}
	return n, out.Commit(ctx)
}

// checkEvery is how many records a long loop handles between two looks
// at its context: a few milliseconds of work.
const checkEvery = 1 << 16

// lookAt is a long loop's look at its context: ctx's error at every
// checkEvery-th i, nil between.
func lookAt(ctx context.Context, i int) error {
	if i%checkEvery != 0 {
		return nil
	}
	return ctx.Err()
}

func writeSynthetic(ctx context.Context, c GenConfig, f *os.File) error {
	g, err := NewGenReader(ctx, c)
	if err != nil {
		return err
	}
	return copyRecords(g, f, nil)
}

// GenReader streams the requests of a synthetic trace as they are drawn,
// the requests Generate writes but without their Next fields, so that a
// replay can read a trace of any length without writing it first.
type GenReader struct {
	ctx context.Context
	c   GenConfig
	g   *generator
	i   int64
}

// NewGenReader checks c and builds its popularity table and permutation
// (16 B per key, seconds at hundreds of millions of keys); the reader
// then stops with ctx's error once ctx is cancelled.
func NewGenReader(ctx context.Context, c GenConfig) (*GenReader, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	g, err := newGenerator(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("generate: setting up %d keys: %w", c.Keys, err)
	}
	return &GenReader{ctx: ctx, c: c, g: g}, nil
}

// Next implements Reader.
func (r *GenReader) Next(q *Request) error {
	if r.i >= r.c.Requests {
		return io.EOF
	}
	if r.i%checkEvery == 0 {
		if err := r.ctx.Err(); err != nil {
			return fmt.Errorf("generate: stopped at request %d of %d: %w", r.i, r.c.Requests, err)
		}
	}
	id := r.g.next()
	*q = Request{Time: uint32(r.i), ID: id, Size: r.c.sizeOf(id), Next: NoNext}
	r.i++
	return nil
}

// compressTo writes raw, compressed by path's suffix, into out.
func compressTo(ctx context.Context, raw, out *os.File, path string) (err error) {
	zw, err := newCompressor(out, path)
	if err != nil {
		return err
	}
	if _, err := raw.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewind %s: %w", raw.Name(), err)
	}
	if _, err := io.Copy(zw, &ctxReader{ctx: ctx, r: bufio.NewReaderSize(raw, readBuffer)}); err != nil {
		zw.Close()
		return fmt.Errorf("compress into %s: %w", path, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("compress into %s: %w", path, err)
	}
	return nil
}

// newCompressor compresses into w by path's suffix: zstd for .zst, xz
// for .xz, gzip for .gz; none (a no-op Close) otherwise.
func newCompressor(w io.Writer, path string) (io.WriteCloser, error) {
	switch {
	case strings.HasSuffix(path, ".zst"):
		zw, err := zstd.NewWriter(w)
		if err != nil {
			return nil, fmt.Errorf("zstd writer for %s: %w", path, err)
		}
		return zw, nil
	case strings.HasSuffix(path, ".xz"):
		zw, err := xz.NewWriter(w)
		if err != nil {
			return nil, fmt.Errorf("xz writer for %s: %w", path, err)
		}
		return zw, nil
	case strings.HasSuffix(path, ".gz"):
		return gzip.NewWriter(w), nil
	}
	return nopWriteCloser{w}, nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// ctxReader ends a copy once ctx is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
