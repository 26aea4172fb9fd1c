// Package published holds the published cache traces cachebench vendors
// (README.md in this directory gives each one's source, licence and
// figures), embedded in the binary so that `cachebench hitratio --suite
// real` runs from a `go install`ed binary, without a checkout. They are
// kept as their publishers compressed them (about 8 MB, the size the
// binary grows by) in the directory layout of Caffeine's simulator, one
// directory per format, which is what trace.FormatOf reads a format from.
package published

import (
	"embed"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/cachebench/cachebench/internal/workloads/trace"
)

//go:embed lirs cache2k scarab corda cloud_physics adapt_size
var files embed.FS

// FS returns the embedded traces; Trace.Path names a file in it.
func FS() fs.FS { return files }

// Trace is one vendored trace.
type Trace struct {
	// Path is the file in FS: the format's directory and the file name
	// as published ("cache2k/web07.trace.xz").
	Path   string
	Format trace.Format
}

// Name is Path without its compression and ".trace" suffixes
// ("cache2k/web07"), the name results and charts give the trace.
func (t Trace) Name() string {
	n := t.Path
	for _, s := range []string{".gz", ".xz", ".zst", ".trace"} {
		n = strings.TrimSuffix(n, s)
	}
	return n
}

// List returns every vendored trace, sorted by path. Files that are not
// traces (licence texts) are left out.
func List() []Trace {
	var out []Trace
	fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".txt") {
			return err
		}
		f, err := trace.FormatOf(p)
		if err != nil {
			return err
		}
		out = append(out, Trace{Path: p, Format: f})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Lookup finds a vendored trace by its Name or Path ("lirs/sprite",
// "lirs/sprite.trace.gz").
func Lookup(name string) (Trace, bool) {
	name = path.Clean(name)
	for _, t := range List() {
		if t.Name() == name || t.Path == name {
			return t, true
		}
	}
	return Trace{}, false
}

// Source returns the trace as a trace.Source reading the embedded file.
func (t Trace) Source() trace.Source {
	return trace.Source{FS: files, Path: t.Path, Format: t.Format, Name: t.Name()}
}

// Resolve turns a trace argument "[FORMAT:]FILE" into a source: the file
// on disk when there is one, else the vendored trace FILE names
// ("lirs/sprite", "cache2k/web07.trace.xz"), so that a binary without a
// checkout can replay them. def is the format of an argument without
// FORMAT: ("" guesses it from the name). "chain:A+B" is the chain of the
// sources A and B resolve to (trace.Chain).
func Resolve(arg string, def trace.Format) trace.Source {
	if parts, ok := trace.ParseChain(arg); ok {
		var srcs []trace.Source
		for _, p := range parts {
			srcs = append(srcs, Resolve(p, def))
		}
		return trace.NewChain(srcs)
	}
	f, p := trace.ParseSpec(arg)
	if f == "" {
		f = def
	}
	src := trace.Source{Path: p, Format: f}
	if _, err := os.Stat(p); err == nil {
		return src
	}
	if t, ok := Lookup(p); ok {
		s := t.Source()
		if f != "" {
			s.Format = f
		}
		return s
	}
	return src
}
