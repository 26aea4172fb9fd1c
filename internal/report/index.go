package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cachebench/cachebench/internal/fileio"
)

// IndexName is the file BuildIndex writes in a results folder.
const IndexName = "README.md"

// MaxResultFile bounds what is read of one result file: results are
// kilobytes to a few megabytes; anything far larger is not one.
const MaxResultFile = 1 << 30

// ReadResultFile reads a result from path, in JSON or in the gobench
// format (sniffed: JSON starts with '{'). Every failure is an
// *InputError naming path. It reads through fileio.ReadInput: a FIFO
// without a writer gives up when ctx is cancelled, and /dev/zero or a
// file above MaxResultFile is refused (os.ReadFile read either until the
// process ran out of memory, deaf to Ctrl-C).
func ReadResultFile(ctx context.Context, path string) (*Result, error) {
	data, err := fileio.ReadInput(ctx, path, MaxResultFile)
	if err != nil {
		return nil, &InputError{Path: path, Err: err}
	}
	return ParseResultContext(ctx, data, path)
}

// ParseResult reads a result from data, the contents of path, as
// ReadResultFile does; commands that open their inputs themselves (a FIFO
// through fileio.OpenInput) hand the bytes here.
func ParseResult(data []byte, path string) (*Result, error) {
	return ParseResultContext(context.Background(), data, path)
}

// ParseResultContext is ParseResult that returns ctx's error within
// milliseconds of ctx's cancellation, however large data is: the gobench
// reader looks at ctx every few thousand lines, and the JSON decoder,
// which cannot be stopped inside one document, is left to finish on its
// own goroutine while the caller returns (and the command exits).
func ParseResultContext(ctx context.Context, data []byte, path string) (*Result, error) {
	return UntilDone(ctx, func() (*Result, error) {
		var res *Result
		var err error
		if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
			res, err = readJSON(data, path)
		} else {
			res, err = readGoBench(ctx, data, path)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &InputError{Path: path, Err: err}
		}
		return res, nil
	})
}

// UntilDone runs fn on a goroutine of its own and returns what it
// returns, or ctx's error as soon as ctx is cancelled (fn then finishes
// unobserved). It is for work that cannot look at ctx itself, such as
// decoding one JSON document or a library's statistics, so that Ctrl-C
// still stops the command within a second.
func UntilDone[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	if ctx.Done() == nil {
		return fn()
	}
	type out struct {
		v   T
		err error
	}
	ch := make(chan out, 1)
	go func() {
		v, err := fn()
		ch <- out{v, err}
	}()
	select {
	case o := <-ch:
		return o.v, o.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

type indexEntry struct {
	file string
	res  *Result
}

// BuildIndex reads every *.json result in dir and writes dir/README.md
// (atomically): one section per CPU model, run results then gc-pause
// results, each labelled with its file name, date and git revision. The
// output depends only on the files, so rebuilding an unchanged folder
// changes nothing. A file that is not a readable cachebench result is an
// error naming it (an *InputError) and no README is written: an index
// that silently leaves a result out would misreport the folder.
func BuildIndex(ctx context.Context, dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return &InputError{Path: dir, Err: err}
	}
	if !st.IsDir() {
		return &InputError{Path: dir, Err: errors.New("not a directory")}
	}
	names, err := os.ReadDir(dir)
	if err != nil {
		return &InputError{Path: dir, Err: err}
	}
	var entries []indexEntry
	var others []string // the folder's other pages, linked from the index
	var errs []error
	for _, n := range names {
		if n.IsDir() && !strings.HasSuffix(n.Name(), ".json") {
			if _, err := os.Stat(filepath.Join(dir, n.Name(), IndexName)); err == nil {
				others = append(others, n.Name()+"/"+IndexName)
			}
			continue
		}
		if !n.IsDir() && strings.HasSuffix(n.Name(), ".md") && n.Name() != IndexName {
			others = append(others, n.Name())
		}
		if !strings.HasSuffix(n.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, n.Name())
		if n.IsDir() {
			// Skipped here, it would be read as a result by the charts.
			errs = append(errs, &InputError{Path: path, Err: errors.New("a directory named like a result file: rename or move it")})
			continue
		}
		res, err := readJSONFile(ctx, path)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			errs = append(errs, err)
			continue
		}
		entries = append(entries, indexEntry{file: n.Name(), res: res})
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return WriteFileAtomic(filepath.Join(dir, IndexName), func(w io.Writer) error {
		return writeIndex(w, entries, others)
	})
}

func readJSONFile(ctx context.Context, path string) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := fileio.ReadInput(ctx, path, MaxResultFile)
	if err != nil {
		return nil, &InputError{Path: path, Err: err}
	}
	res, err := readJSON(data, path)
	if err != nil {
		return nil, &InputError{Path: path, Err: err}
	}
	return res, nil
}

// writeIndex writes the index of entries; others are the folder's other
// pages (markdown files, and the README of each subfolder that has one),
// listed after the introduction so that the index leads to every dated
// measurement kept beside the results.
func writeIndex(w io.Writer, entries []indexEntry, others []string) error {
	d := &document{}
	d.heading(1, "cachebench results")
	d.para("Generated by `cachebench report` from the JSON results in this folder; do not edit it by hand, " +
		"rerun `cachebench report` instead. Adapters flagged ⚠ (wrong values, errors, lost entries) are listed last and not ranked. " +
		"Compare figures only within one CPU model.")
	if len(others) > 0 {
		links := make([]string, len(others))
		for i, o := range others {
			links[i] = "[" + strings.TrimSuffix(o, IndexName) + "](" + o + ")"
		}
		d.para("Also in this folder: " + strings.Join(links, ", ") + ".")
	}
	if len(entries) == 0 {
		d.para("No results yet: `cachebench run --format json -o results/NAME.json`, then `cachebench report results`.")
		return d.write(w, markdownStyle)
	}
	byCPU := map[string][]indexEntry{}
	for _, e := range entries {
		cpu := e.res.Env.CPUModel
		if cpu == "" {
			cpu = "unknown CPU"
		}
		byCPU[cpu] = append(byCPU[cpu], e)
	}
	cpus := make([]string, 0, len(byCPU))
	for c := range byCPU {
		cpus = append(cpus, c)
	}
	sort.Strings(cpus)
	var toc []string
	for _, c := range cpus {
		toc = append(toc, fmt.Sprintf("- %s: %d result(s)", c, len(byCPU[c])))
	}
	d.para(strings.Join(toc, "\n"))
	for _, c := range cpus {
		es := byCPU[c]
		// Runs before gc-pause results, each by file name.
		sort.SliceStable(es, func(i, j int) bool {
			gi, gj := es[i].res.Kind == KindGCPause, es[j].res.Kind == KindGCPause
			if gi != gj {
				return !gi
			}
			return es[i].file < es[j].file
		})
		d.heading(2, "%s", c)
		for _, e := range es {
			d.heading(3, "%s", entryLabel(e))
			addResult(d, 4, e.res)
		}
	}
	return d.write(w, markdownStyle)
}

func entryLabel(e indexEntry) string {
	parts := []string{e.file}
	kind := e.res.Kind
	if kind == "" {
		kind = KindRun
	}
	parts = append(parts, kind)
	if !e.res.Started.IsZero() {
		parts = append(parts, e.res.Started.UTC().Format("2006-01-02"))
	}
	if e.res.Env.GitRevision != "" {
		parts = append(parts, "revision "+shortRev(e.res.Env.GitRevision))
	}
	return strings.Join(parts, " · ")
}
