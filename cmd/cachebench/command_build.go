package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cachebench/cachebench/internal/engine/mmapstore"
)

// buildMaxLine bounds one input line (TSV, JSONL), so a file without
// newlines cannot make the reader buffer grow without limit.
const buildMaxLine = 256 << 20

type buildOpts struct {
	input, format, output, progress, dups string
	keys                                  int64
	dedup, skipHeader                     bool
	seed                                  uint64
	maxLoad                               float64
}

func newBuildCmd() *cobra.Command {
	var o buildOpts
	cmd := &cobra.Command{
		Use:   "build (--input FILE | --keys N) -o FILE",
		Short: "Build a cachebench mmap store file from TSV, CSV or JSON lines, or synthetic keys",
		Long: `build writes a cachebench store file (see internal/engine/mmapstore/FORMAT.md).

Input formats, chosen by the file's extension (.tsv, .csv, .jsonl/.ndjson)
or --input-format:
  tsv    one "key<TAB>value" per line. Backslash escapes in keys and values:
         \\ \t \n \r \0 and \xHH; any other escape is an error. Blank lines
         are skipped and a trailing CR is dropped.
  csv    two columns per record (encoding/csv, RFC 4180 quoting).
  jsonl  one {"key": "...", "value": "..."} object per line.
--keys N builds the benchmark data set key_%d → val_%d for i in [0, N).

A repeated key is an error naming both lines unless --duplicates=last.
The file is written to a temporary file next to -o, fsynced and renamed
over it, so on any failure the destination keeps its old contents.
Bad input exits with status 2 and a file:line message.`,
		Example: `  cachebench build --input data.tsv -o data.cache
  cachebench build --input export.csv --skip-header --dedup -o data.cache
  cachebench build --input events.json --input-format jsonl -o events.cache
  cachebench build --keys 1000000 -o bench.cache`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBuild(cmd, &o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.input, "input", "", "input file (TSV, CSV or JSON lines)")
	f.StringVar(&o.format, "input-format", "", "input format: tsv, csv or jsonl (default: from the extension)")
	f.StringVarP(&o.output, "output", "o", "", "store file to write (replaced atomically)")
	f.Int64Var(&o.keys, "keys", 0, "build N synthetic keys key_%d → val_%d instead of reading --input")
	f.BoolVar(&o.dedup, "dedup", false, "store each distinct value once")
	f.BoolVar(&o.skipHeader, "skip-header", false, "skip the first line (TSV) or record (CSV)")
	f.StringVar(&o.dups, "duplicates", "error", "repeated keys: error or last (keep the last value)")
	f.Uint64Var(&o.seed, "seed", 0, "hash seed (0: random)")
	f.Float64Var(&o.maxLoad, "max-load", mmapstore.DefaultMaxLoad, "highest fraction of index slots in use, in (0.05, 0.9]")
	f.StringVar(&o.progress, "progress", "auto", "progress bar on stderr: auto (only on a terminal), always or never")
	return cmd
}

// buildSource yields pairs and the input line each came from.
type buildSource interface {
	// next returns the next pair (valid until the following call), its
	// line, or io.EOF.
	next() (key, val []byte, line int64, err error)
}

func runBuild(cmd *cobra.Command, o *buildOpts) error {
	if o.output == "" {
		return usageErrorf("build: -o/--output is required")
	}
	if (o.input == "") == (o.keys == 0) {
		return usageErrorf("build: give exactly one of --input FILE and --keys N")
	}
	if o.keys < 0 {
		return usageErrorf("build: --keys must be positive, got %d", o.keys)
	}
	if !(o.maxLoad > 0.05 && o.maxLoad <= 0.9) {
		return usageErrorf("build: --max-load %v outside (0.05, 0.9]", o.maxLoad)
	}
	opts := mmapstore.BuildOptions{Dedup: o.dedup, Seed: o.seed, MaxLoad: o.maxLoad}
	switch o.dups {
	case "error":
		opts.Duplicates = mmapstore.DupError
	case "last":
		opts.Duplicates = mmapstore.DupLastWins
	default:
		return usageErrorf("build: unknown --duplicates %q (valid: error, last)", o.dups)
	}
	showBar, err := buildShowProgress(o.progress, cmd.ErrOrStderr())
	if err != nil {
		return err
	}

	var src buildSource
	var total int64
	var counter *countingReader
	name := o.input
	if o.input != "" {
		format := o.format
		if format == "" {
			switch strings.ToLower(filepath.Ext(o.input)) {
			case ".tsv", ".tab", ".txt":
				format = "tsv"
			case ".csv":
				format = "csv"
			case ".jsonl", ".ndjson":
				format = "jsonl"
			default:
				return usageErrorf("build: cannot tell the format of %s from its extension; use --input-format tsv|csv|jsonl", o.input)
			}
		}
		in, err := os.Open(o.input)
		if err != nil {
			return usageErrorf("build: %w", err)
		}
		defer in.Close()
		if fi, err := in.Stat(); err == nil {
			total = fi.Size()
		}
		counter = &countingReader{r: in}
		switch format {
		case "tsv":
			src = newTSVSource(counter)
		case "csv":
			src = newCSVSource(counter)
		case "jsonl", "json":
			src = newJSONLSource(counter)
		default:
			return usageErrorf("build: unknown --input-format %q (valid: tsv, csv, jsonl)", format)
		}
		if o.skipHeader {
			if _, _, _, err := src.next(); err != nil && err != io.EOF {
				return usageErrorf("%s:%v", name, err)
			}
		}
	} else {
		name = "synthetic"
		total = o.keys
		src = &synthSource{n: o.keys}
		opts.SizeHint = int(min(o.keys, 1<<30))
	}

	var bar *progressbar.ProgressBar
	if showBar {
		bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(cmd.ErrOrStderr()),
			progressbar.OptionSetDescription("building "+filepath.Base(o.output)),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowBytes(counter != nil),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish())
	}

	start := time.Now()
	b, err := mmapstore.Create(o.output, opts)
	if err != nil {
		return err
	}
	defer b.Abort() // removes the temp file unless Finish succeeded
	// lines maps the position of each Add to its input line, so that an
	// error found only when the index is built names the lines.
	lines := make([]int64, 0, opts.SizeHint)
	ctx := cmd.Context()
	for n := int64(0); ; n++ {
		key, val, line, err := src.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return usageErrorf("%s:%v", name, err)
		}
		if len(key) == 0 {
			return usageErrorf("%s:%d: empty key", name, line)
		}
		if err := b.Add(key, val); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		lines = append(lines, line)
		if n%4096 == 0 {
			if ctx != nil && ctx.Err() != nil {
				return fmt.Errorf("build %s: %w", o.output, ctx.Err())
			}
			if bar != nil {
				if counter != nil {
					bar.Set64(counter.n)
				} else {
					bar.Set64(n)
				}
			}
		}
	}
	res, err := b.Finish()
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		var de *mmapstore.DuplicateKeyError
		if errors.As(err, &de) && de.Second < int64(len(lines)) && de.First < int64(len(lines)) {
			return usageErrorf("%s:%d: duplicate key %s (first at line %d); use --duplicates=last to keep the last value",
				name, lines[de.Second], strconv.Quote(string(de.Key)), lines[de.First])
		}
		if errors.Is(err, mmapstore.ErrProbeLimit) {
			return usageErrorf("%s: %w", name, err)
		}
		return err
	}
	el := time.Since(start)
	h := res.Header
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "wrote %s: %d entries (%d records), %d bytes (%.1f B/entry)\n", o.output, h.Entries, h.Records, h.FileSize, perEntry(h.FileSize, h.Entries))
	fmt.Fprintf(w, "index: %d slots, load factor %.3f, max probe %d\n", h.Slots, float64(h.Entries)/float64(h.Slots), h.MaxProbe)
	if o.dedup {
		fmt.Fprintf(w, "dedup: %d references, %d bytes saved\n", res.DedupRefs, res.DedupSavedBytes)
	}
	fmt.Fprintf(w, "build: %s (%.0f ns/entry, fsync and rename included)\n", el.Round(time.Millisecond), float64(el.Nanoseconds())/float64(max(h.Records, 1)))
	return nil
}

func perEntry(size, n uint64) float64 {
	if n == 0 {
		return 0
	}
	return float64(size) / float64(n)
}

// buildShowProgress decides whether to draw the bar: stdout carries
// results, so progress goes to stderr, and only to a terminal unless asked.
func buildShowProgress(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		f, ok := w.(*os.File)
		return ok && term.IsTerminal(int(f.Fd())), nil
	}
	return false, usageErrorf("build: unknown --progress %q (valid: auto, always, never)", mode)
}

// countingReader counts the bytes read, for the progress bar.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// synthSource yields key_%d → val_%d.
type synthSource struct {
	i, n     int64
	key, val []byte
}

func (s *synthSource) next() ([]byte, []byte, int64, error) {
	if s.i >= s.n {
		return nil, nil, 0, io.EOF
	}
	s.key = strconv.AppendInt(append(s.key[:0], "key_"...), s.i, 10)
	s.val = strconv.AppendInt(append(s.val[:0], "val_"...), s.i, 10)
	s.i++
	return s.key, s.val, s.i, nil
}

// tsvSource reads key<TAB>value lines with backslash escapes.
type tsvSource struct {
	sc       *bufio.Scanner
	line     int64
	key, val []byte
}

func newTSVSource(r io.Reader) *tsvSource {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), buildMaxLine)
	return &tsvSource{sc: sc}
}

func (s *tsvSource) next() ([]byte, []byte, int64, error) {
	for s.sc.Scan() {
		s.line++
		ln := bytes.TrimSuffix(s.sc.Bytes(), []byte{'\r'})
		if len(ln) == 0 {
			continue
		}
		tab := bytes.IndexByte(ln, '\t')
		if tab < 0 {
			return nil, nil, s.line, fmt.Errorf("%d: no tab between key and value", s.line)
		}
		if bytes.IndexByte(ln[tab+1:], '\t') >= 0 {
			return nil, nil, s.line, fmt.Errorf("%d: more than one tab (escape tabs in values as \\t)", s.line)
		}
		var err error
		if s.key, err = tsvUnescape(s.key[:0], ln[:tab]); err != nil {
			return nil, nil, s.line, fmt.Errorf("%d: key: %w", s.line, err)
		}
		if s.val, err = tsvUnescape(s.val[:0], ln[tab+1:]); err != nil {
			return nil, nil, s.line, fmt.Errorf("%d: value: %w", s.line, err)
		}
		return s.key, s.val, s.line, nil
	}
	if err := s.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, nil, s.line + 1, fmt.Errorf("%d: line longer than %d bytes", s.line+1, buildMaxLine)
		}
		return nil, nil, s.line, fmt.Errorf("%d: %w", s.line, err)
	}
	return nil, nil, 0, io.EOF
}

// tsvUnescape appends src to dst with \\ \t \n \r \0 \xHH decoded.
func tsvUnescape(dst, src []byte) ([]byte, error) {
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		if i+1 == len(src) {
			return dst, errors.New("backslash at end of field")
		}
		i++
		switch src[i] {
		case '\\':
			dst = append(dst, '\\')
		case 't':
			dst = append(dst, '\t')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case '0':
			dst = append(dst, 0)
		case 'x':
			if i+2 >= len(src) {
				return dst, errors.New(`truncated \x escape`)
			}
			v, err := strconv.ParseUint(string(src[i+1:i+3]), 16, 8)
			if err != nil {
				return dst, fmt.Errorf(`invalid escape \x%s`, src[i+1:i+3])
			}
			dst = append(dst, byte(v))
			i += 2
		default:
			return dst, fmt.Errorf(`invalid escape \%c (valid: \\ \t \n \r \0 \xHH)`, src[i])
		}
	}
	return dst, nil
}

// csvSource reads two-column CSV records.
type csvSource struct{ r *csv.Reader }

func newCSVSource(r io.Reader) *csvSource {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	cr.ReuseRecord = true
	return &csvSource{r: cr}
}

func (s *csvSource) next() ([]byte, []byte, int64, error) {
	rec, err := s.r.Read()
	if err == io.EOF {
		return nil, nil, 0, io.EOF
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, nil, int64(pe.Line), fmt.Errorf("%d: %v", pe.Line, pe.Err)
		}
		return nil, nil, 0, fmt.Errorf("0: %w", err)
	}
	line, _ := s.r.FieldPos(0)
	return []byte(rec[0]), []byte(rec[1]), int64(line), nil
}

// jsonlSource reads {"key": ..., "value": ...} lines.
type jsonlSource struct {
	sc   *bufio.Scanner
	line int64
}

func newJSONLSource(r io.Reader) *jsonlSource {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), buildMaxLine)
	return &jsonlSource{sc: sc}
}

func (s *jsonlSource) next() ([]byte, []byte, int64, error) {
	for s.sc.Scan() {
		s.line++
		ln := bytes.TrimSpace(s.sc.Bytes())
		if len(ln) == 0 {
			continue
		}
		var rec struct {
			Key   *string `json:"key"`
			Value *string `json:"value"`
		}
		dec := json.NewDecoder(bytes.NewReader(ln))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			return nil, nil, s.line, fmt.Errorf("%d: %v", s.line, err)
		}
		if dec.More() {
			return nil, nil, s.line, fmt.Errorf("%d: more than one JSON value on the line", s.line)
		}
		if rec.Key == nil || rec.Value == nil {
			return nil, nil, s.line, fmt.Errorf(`%d: want {"key": string, "value": string}`, s.line)
		}
		return []byte(*rec.Key), []byte(*rec.Value), s.line, nil
	}
	if err := s.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, nil, s.line + 1, fmt.Errorf("%d: line longer than %d bytes", s.line+1, buildMaxLine)
		}
		return nil, nil, s.line, fmt.Errorf("%d: %w", s.line, err)
	}
	return nil, nil, 0, io.EOF
}
