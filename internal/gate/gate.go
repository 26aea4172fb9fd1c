// Package gate is cachebench's regression gate: it builds a program that
// runs cachebench's command line (cmd/cachebench, or a user's main calling
// cachebench.Main) at a base revision and at a new one, each in a git
// worktree of its own, runs the same quick suite with both binaries in
// separate processes, interleaved, and compares the results.
//
// Two comparisons, because they need different things to be trustworthy:
//
//  1. Times against the base revision, measured here, now. Absolute times
//     drift from machine to machine and run to run by more than the
//     effects worth catching, so times and rates are compared as ratios to
//     a reference adapter measured in the same repetition, with a generous
//     minimum effect (Options.Threshold). Repetitions inside one process
//     share its memory layout, which moves some ratios by tens of percent
//     from one process to the next, so each side's repetitions are spread
//     over several processes, the two binaries' processes alternating,
//     and merged (report.Merge). A regression found is confirmed by a
//     second, fresh set of runs before the gate fails. allocs/op and B/op
//     are compared too, exactly.
//  2. Allocations against committed baselines (Options.Baselines):
//     allocs/op and B/op are deterministic, so they are compared exactly,
//     and a baseline measured on another machine is as good as one
//     measured here.
//
// The verdict is an exit code: 0 no regression, 1 a confirmed regression,
// 2 the gate could not decide (no git, a revision that does not exist, a
// package that does not build, a suite that does not run); the last comes
// back as an error wrapping ErrInput.
package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/report/compare"
)

// Defaults of Options, those of the CI gate of cachebench itself: about
// five seconds per process at 50,000 keys, ten repetitions per side, one
// per process.
const (
	DefaultAdapters  = "map,fastcache,freecache,bigcache,otter,syncmap,shardcache"
	DefaultReference = compare.DefaultReference
	DefaultKeys      = 50_000
	DefaultCount     = 10
	DefaultThreshold = 0.25
	DefaultWorkload  = "insert-lookup"
)

// ErrInput is wrapped by every error that means the gate could not
// decide: bad options, no git, a revision that does not exist, a package
// that does not build, a suite that does not run, a baseline that cannot
// be read or compared.
var ErrInput = errors.New("gate cannot decide")

// Options configures a gate.
type Options struct {
	// Dir is a directory inside the git repository; Package is resolved
	// relative to it, in each revision's worktree ("" is the current
	// directory).
	Dir string
	// Package is the main package to build ("./cmd/cachebench").
	Package string
	// Base and New are the revisions compared (any git revision). Base
	// "none" skips the time comparison: only the baselines gate.
	Base, New string
	// Adapters, Workload, Keys: the suite each process runs (`run
	// --adapters ... --workload ... --keys ...`, one goroutine, no
	// harness floor). Adapters must include Reference.
	Adapters string
	Workload string
	Keys     int
	// Count is the repetitions per side, spread over Processes processes
	// per side (Count must be a multiple of Processes; the default is one
	// repetition per process).
	Count, Processes int
	// Reference is the adapter times and rates are divided by, repetition
	// by repetition.
	Reference string
	// Threshold is the minimum effect of a significant change in a
	// normalised time or rate (0.25 = 25%).
	Threshold float64
	// Baselines are result files (cachebench JSON) whose allocs/op and
	// B/op the new revision must match exactly.
	Baselines []string
	// Work is a directory for worktrees, binaries and results; "" makes
	// a temporary one, removed at the end.
	Work string
	// Git and Go are the commands used ("git" and "go" when empty).
	Git, Go string
	// Log receives progress lines (nil: discarded).
	Log io.Writer
	// AllowDirty lets the gate run in a working tree with uncommitted
	// changes to tracked files. The gate builds commits, so such changes
	// are not measured; without AllowDirty it refuses, rather than pass
	// a change it never saw.
	AllowDirty bool
}

// Comparison is one comparison the gate made.
type Comparison struct {
	// Title says what was compared ("times against the base revision").
	Title string
	// Report is the comparison; Report.Regressions() > 0 is a regression.
	Report *compare.Report
}

// Result is what the gate found.
type Result struct {
	Options Options
	// BaseRev and NewRev are the commits compared (full hashes).
	BaseRev, NewRev string
	// Allocs compares the new results with each baseline.
	Allocs []Comparison
	// Times compares the new revision with the base revision (nil with
	// Base "none"); Confirm is the second set of runs made when Times
	// found a regression, and decides.
	Times, Confirm *Comparison
	// NewResults is the new revision's merged results of the first set.
	NewResults *report.Result
	// SameBinary is set when the base and new revisions build the same
	// bytes: only the baselines are compared then.
	SameBinary bool
	// Build and Measure are the wall times spent building and running.
	Build, Measure time.Duration
}

// Regressions is the number of regressions that fail the gate: those
// of every baseline comparison, plus those of the time comparison if the
// second set confirmed it.
func (r *Result) Regressions() int {
	n := 0
	for _, c := range r.Allocs {
		n += c.Report.Regressions()
	}
	if r.Times != nil {
		final := r.Times
		if r.Confirm != nil {
			final = r.Confirm
		}
		n += final.Report.Regressions()
	}
	return n
}

// Code is the gate's exit code: 0 (no regression) or 1 (regression).
func (r *Result) Code() int {
	if r.Regressions() > 0 {
		return 1
	}
	return 0
}

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))
}

// CheckCount reports whether count repetitions per side are enough for a
// verdict: with fewer than report.MinSamples(compare.DefaultAlpha) the
// rank test cannot reach significance, and the gate would pass every
// change, however slow (at 2 or 3 per side the smallest p is 0.33 or 0.1).
func CheckCount(count int) error {
	if err := report.CheckSamples(fmt.Sprintf("--count %d", count), count, count, compare.DefaultAlpha); err != nil {
		return inputErr("%v: no regression could fail the gate (10 recommended)", err)
	}
	return nil
}

// withDefaults fills the zero fields and checks the rest.
func (o Options) withDefaults() (Options, error) {
	def := func(s *string, v string) {
		if strings.TrimSpace(*s) == "" {
			*s = v
		}
	}
	def(&o.Git, "git")
	def(&o.Go, "go")
	def(&o.Dir, ".")
	def(&o.New, "HEAD")
	def(&o.Base, "HEAD~1")
	def(&o.Adapters, DefaultAdapters)
	def(&o.Workload, DefaultWorkload)
	def(&o.Reference, DefaultReference)
	if o.Keys == 0 {
		o.Keys = DefaultKeys
	}
	if o.Count == 0 {
		o.Count = DefaultCount
	}
	if o.Processes == 0 {
		o.Processes = o.Count
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	switch {
	case strings.TrimSpace(o.Package) == "":
		return o, inputErr("no package to build (the main package calling cachebench.Main, e.g. ./cmd/cachebench)")
	case o.Keys < 1:
		return o, inputErr("keys %d: must be positive", o.Keys)
	case CheckCount(o.Count) != nil:
		return o, CheckCount(o.Count)
	case o.Processes < 1 || o.Count%o.Processes != 0:
		return o, inputErr("count %d must be a multiple of processes %d", o.Count, o.Processes)
	case !(o.Threshold > 0 && o.Threshold < 100):
		return o, inputErr("threshold %v: must be above 0", o.Threshold)
	}
	if !contains(strings.Split(o.Adapters, ","), o.Reference) {
		return o, inputErr("adapters %q must include the reference %q", o.Adapters, o.Reference)
	}
	return o, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}

// gater holds one gate's state.
type gater struct {
	o    Options
	top  string // the repository's top directory
	rel  string // Dir relative to top
	work string
	log  io.Writer
}

// Run runs the gate. The error, if any, wraps ErrInput (the gate could
// not decide) or is ctx's error; a regression is not an error but
// Result.Code() 1.
func Run(ctx context.Context, opt Options) (*Result, error) {
	o, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	g := &gater{o: o, log: o.Log}
	if g.log == nil {
		g.log = io.Discard
	}
	// Everything the gate reads is checked before anything is built.
	baselines := make([]*report.Result, len(o.Baselines))
	for i, p := range o.Baselines {
		if baselines[i], err = report.ReadResultFile(ctx, p); err != nil {
			return nil, inputErr("baseline: %v", err)
		}
	}
	if _, err := exec.LookPath(o.Git); err != nil {
		return nil, inputErr("git is needed to check out the revisions: %v", err)
	}
	if _, err := exec.LookPath(o.Go); err != nil {
		return nil, inputErr("go is needed to build the revisions: %v", err)
	}
	top, err := g.git(ctx, o.Dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, inputErr("%s is not in a git repository: %v", o.Dir, err)
	}
	g.top = top
	if !o.AllowDirty {
		dirty, err := g.git(ctx, top, "status", "--porcelain", "--untracked-files=no")
		if err != nil {
			return nil, inputErr("%v", err)
		}
		if dirty != "" {
			lines := strings.Split(dirty, "\n")
			return nil, inputErr("%s has uncommitted changes (%d files, e.g. %s), which the gate does not measure: it builds commits (--new %s). Commit or stash them, or pass --allow-dirty",
				top, len(lines), strings.TrimSpace(lines[0]), o.New)
		}
	}
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, inputErr("%s: %v", o.Dir, err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, inputErr("%s: %v", o.Dir, err)
	}
	if g.rel, err = filepath.Rel(top, abs); err != nil {
		return nil, inputErr("%s: %v", o.Dir, err)
	}
	res := &Result{Options: o}
	if res.NewRev, err = g.resolve(ctx, o.New); err != nil {
		return nil, err
	}
	if o.Base != "none" {
		if res.BaseRev, err = g.resolve(ctx, o.Base); err != nil {
			return nil, err
		}
	}

	if g.work = o.Work; g.work == "" {
		if g.work, err = os.MkdirTemp("", "cachebench-gate-"); err != nil {
			return nil, fmt.Errorf("gate: work directory: %w", err)
		}
		defer os.RemoveAll(g.work)
	} else if err := os.MkdirAll(g.work, 0o755); err != nil {
		return nil, fmt.Errorf("gate: work directory: %w", err)
	}

	start := time.Now()
	newBin, err := g.build(ctx, "new", res.NewRev)
	if err != nil {
		return nil, err
	}
	bins := []string{newBin}
	if res.BaseRev != "" {
		baseBin, err := g.build(ctx, "base", res.BaseRev)
		if err != nil {
			return nil, err
		}
		bins = append(bins, baseBin)
		// Two revisions that build the same program have no times to
		// compare: timing them anyway can only find noise, and on a
		// loaded 2-core machine two sets of identical binaries once
		// agreed on a 35% "regression" of bigcache against fastcache
		// (a results-only commit). The new binary is still measured
		// against the baselines.
		same, err := sameBinary(newBin, baseBin)
		if err != nil {
			return nil, err
		}
		if same {
			res.SameBinary = true
			bins = bins[:1]
			fmt.Fprintf(g.log, "gate: %s and %s build the same binary: times not compared\n", short(res.NewRev), short(res.BaseRev))
		}
	}
	res.Build = time.Since(start)

	start = time.Now()
	defer func() { res.Measure = time.Since(start) }()
	if len(bins) == 1 {
		fmt.Fprintf(g.log, "gate: measuring: %d repetitions of the new binary over %d processes\n", o.Count, o.Processes)
	} else {
		fmt.Fprintf(g.log, "gate: measuring: %d repetitions per side over %d processes per side\n", o.Count, o.Processes)
	}
	set, err := g.measure(ctx, "1", bins)
	if err != nil {
		return nil, err
	}
	res.NewResults = set[0]
	// The binaries carry no commit (-buildvcs=false); the results say
	// which one they measured.
	res.NewResults.Env.GitRevision = res.NewRev

	for i, b := range baselines {
		rep, err := compare.Compare(b, set[0], g.compareOptions(true))
		if err != nil {
			return nil, inputErr("compare with the baseline %s: %v", o.Baselines[i], err)
		}
		rep.OldName, rep.NewName = o.Baselines[i], "new ("+short(res.NewRev)+")"
		res.Allocs = append(res.Allocs, Comparison{Title: "allocations against the baseline " + o.Baselines[i], Report: rep})
		fmt.Fprintf(g.log, "gate: allocations against %s: %d regressions\n", o.Baselines[i], rep.Regressions())
	}
	if res.BaseRev == "" || res.SameBinary {
		return res, nil
	}
	if res.Times, err = g.compareRevs(set, res, "times and allocations against the base revision"); err != nil {
		return nil, err
	}
	fmt.Fprintf(g.log, "gate: against the base revision: %d regressions\n", res.Times.Report.Regressions())
	if res.Times.Report.Regressions() == 0 {
		return res, nil
	}
	fmt.Fprintf(g.log, "gate: confirming with a fresh set of runs\n")
	set2, err := g.measure(ctx, "2", bins)
	if err != nil {
		return nil, err
	}
	if res.Confirm, err = g.compareRevs(set2, res, "confirmation: a second set of runs against the base revision"); err != nil {
		return nil, err
	}
	fmt.Fprintf(g.log, "gate: second set: %d regressions\n", res.Confirm.Report.Regressions())
	return res, nil
}

func (g *gater) compareRevs(set []*report.Result, res *Result, title string) (*Comparison, error) {
	rep, err := compare.Compare(set[1], set[0], g.compareOptions(false))
	if err != nil {
		return nil, inputErr("compare %s with %s: %v", short(res.NewRev), short(res.BaseRev), err)
	}
	rep.OldName, rep.NewName = "base ("+short(res.BaseRev)+")", "new ("+short(res.NewRev)+")"
	return &Comparison{Title: title, Report: rep}, nil
}

// compareOptions are the gate's comparison settings; allocsOnly for the
// baselines, whose times were measured elsewhere.
// ExactRelTolerance is how far allocs/op and B/op may move, relative to
// the larger of the two means, before the gate calls it a change. Counts
// that grow a Go map or a library's buffers depend on the hash seed of
// the process: the map adapter's insert measured 2.005 and 2.006 allocs
// per op in two processes of one binary, otter's 4.088 and 4.089. Half a
// percent keeps those quiet and still catches one more allocation per
// operation on anything below 200 allocations per operation.
const ExactRelTolerance = 0.005

func (g *gater) compareOptions(allocsOnly bool) compare.Options {
	o := g.o
	metrics := []report.Metric{report.MetricNsPerOp, report.MetricOpsPerSec, report.MetricAllocsPerOp, report.MetricBytesPerOp}
	if allocsOnly {
		metrics = metrics[2:]
	}
	opt := compare.Options{Alpha: compare.DefaultAlpha, MinSamples: o.Count, Normalize: o.Reference,
		ExactRelTolerance: ExactRelTolerance,
		Rule:              fmt.Sprintf("cachebench gate: %d repetitions per side over %d processes, interleaved", o.Count, o.Processes)}
	for _, m := range metrics {
		s, _ := compare.Spec(m)
		if s.Exact {
			s.Threshold = 0
		} else {
			s.Threshold = o.Threshold
		}
		opt.Metrics = append(opt.Metrics, s)
	}
	return opt
}

// measure runs the suite Processes times per binary, the binaries'
// processes alternating (and which goes first alternating too, so that
// neither side always runs on a machine the other has just warmed or
// heated), and returns each binary's runs merged.
func (g *gater) measure(ctx context.Context, set string, bins []string) ([]*report.Result, error) {
	per := g.o.Count / g.o.Processes
	runs := make([][]*report.Result, len(bins))
	for i := 0; i < g.o.Processes; i++ {
		for j := range bins {
			b := j
			if i%2 == 1 {
				b = len(bins) - 1 - j
			}
			out := filepath.Join(g.work, fmt.Sprintf("set%s-bin%d-%d.json", set, b, i))
			if err := g.runSuite(ctx, bins[b], per, out); err != nil {
				return nil, err
			}
			r, err := report.ReadResultFile(ctx, out)
			if err != nil {
				return nil, inputErr("%s wrote an unreadable result: %v", bins[b], err)
			}
			runs[b] = append(runs[b], r)
		}
		side := " per side"
		if len(bins) == 1 {
			side = ""
		}
		fmt.Fprintf(g.log, "gate: set %s: %d of %d processes%s done\n", set, i+1, g.o.Processes, side)
	}
	merged := make([]*report.Result, len(bins))
	for b, rs := range runs {
		m, err := report.Merge(rs...)
		if err != nil {
			return nil, inputErr("merge the runs of %s: %v", bins[b], err)
		}
		merged[b] = m
	}
	return merged, nil
}

// SuiteArgs are the flags of the `run` command of one process of the
// suite, count repetitions (each process adds -o and its result file).
// The command line checks them before anything is built, as that run
// would, with the count of a whole side (a side's merged result is what
// one run of --count Count gives).
func (o Options) SuiteArgs(count int) []string {
	return []string{"--adapters", o.Adapters, "--workload", o.Workload,
		"--keys", strconv.Itoa(o.Keys), "--count", strconv.Itoa(count), "--cpu", "1",
		"--no-floor", "--progress", "never", "--format", "json"}
}

// runSuite runs one process of the suite.
func (g *gater) runSuite(ctx context.Context, bin string, count int, out string) error {
	args := append(append([]string{"run"}, g.o.SuiteArgs(count)...), "-o", out)
	cmd := interruptible(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return inputErr("the suite does not run: %s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, tail(stderr.Bytes(), 20))
	}
	return nil
}

// sanitize makes a package path usable in a file name.
func sanitize(pkg string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == '.' || r == ' ' {
			return '_'
		}
		return r
	}, strings.Trim(filepath.ToSlash(pkg), "./"))
}

// tail returns the last n lines of out.
func tail(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// short abbreviates a commit hash.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
