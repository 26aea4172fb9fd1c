package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
	"github.com/cachebench/cachebench/internal/workloads/gcpause"
	"github.com/cachebench/cachebench/internal/workloads/machine"
	"github.com/cachebench/cachebench/internal/workloads/runner"
)

// gcPauseChildEnv is set in every child's environment. The real binary
// ignores it (the child is selected by --child); a test binary, whose
// arguments are test flags, uses it to run the command instead of the
// tests (see TestMain).
const gcPauseChildEnv = "CACHEBENCH_GCPAUSE_CHILD"

// gcPauseFlags are the flags of `cachebench gc-pause`.
type gcPauseFlags struct {
	entries    int
	valueSize  int
	gogc       int
	adapters   string
	count      int
	seed       uint64
	verify     int
	format     string
	output     string
	progress   string
	child      string // hidden: run one child for this adapter
	repetition int    // hidden: the child's repetition number
}

func newGCPauseCmd() *cobra.Command {
	var f gcPauseFlags
	cmd := &cobra.Command{
		Use:   "gc-pause",
		Short: "Measure what each cache's entries cost the garbage collector",
		Long: fmt.Sprintf(`gc-pause fills each in-memory adapter with --entries entries (keys "key-%%010d",
--value-size-byte values, GOGC=--gogc) in a fresh child process of its own (the
binary re-executes itself), so that no adapter's garbage or RSS pollutes another's
figures, and reports per adapter:

  fill time; STW pauses (count, max, total, from runtime/metrics); the wall time and
  GC CPU time of a full forced collection after the fill, and the GC CPU of the fill;
  heap objects and heap in use after that collection; peak RSS (VmHWM) and RSS bytes
  per entry; the p99 and p99.9 latency of Gets issued from another goroutine while a
  full collection runs; and a verified sample of the entries (missing, wrong).

The STW pause alone, which bigcache's README compares, stays at tens of µs in modern
Go whatever the heap holds. What grows with the number of pointers is the mark phase:
the forced-GC wall and CPU time and the latency hiccups show it.

Byte-bounded caches get a memory budget of entries × (%d-byte key + value + %d) × %g,
so that nothing is evicted during the fill. Each repetition (--count) is a fresh child;
a child that fails (out of memory, crash) is reported and the others go on.`, gcpause.KeyLen, runner.EntryOverhead, runner.InsertHeadroom),
		Example: `  cachebench gc-pause
  cachebench gc-pause --entries 1000000 --count 3
  cachebench gc-pause --adapters map,fastcache,freecache --gogc 100 --format text
  cachebench gc-pause --format json -o results/gc-pause.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.child != "" {
				return runGCPauseChild(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &f)
			}
			return runGCPause(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.entries, "entries", 20_000_000, "entries written into each cache")
	fl.IntVar(&f.valueSize, "value-size", 100, fmt.Sprintf("value size in bytes (%d..%d)", gcpause.MinValueSize, gcpause.MaxValueSize))
	fl.IntVar(&f.gogc, "gogc", 10, "GOGC of each child (debug.SetGCPercent); -1 turns the collector off")
	fl.StringVar(&f.adapters, "adapters", "", "comma-separated in-memory adapters (default: every in-memory adapter)")
	fl.IntVar(&f.count, "count", 5, "repetitions, each in a fresh child process")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the verified sample and of the keys read during the GC")
	fl.IntVar(&f.verify, "verify", 10_000, "random entries read back and checked after the fill (all when ≥ --entries)")
	fl.StringVar(&f.format, "format", "markdown", "output format: text, markdown, json or gobench")
	fl.StringVarP(&f.output, "output", "o", "", "write the results to this file (atomically) instead of stdout")
	fl.StringVar(&f.progress, "progress", "auto", "progress on stderr: auto (only on a terminal), always or never")
	fl.StringVar(&f.child, "child", "", "internal: measure this adapter in this process and print the result as JSON")
	fl.IntVar(&f.repetition, "repetition", 0, "internal: repetition number of the child")
	_ = fl.MarkHidden("child")
	_ = fl.MarkHidden("repetition")
	return cmd
}

// gcPauseAdapters resolves --adapters to in-memory adapter names.
func gcPauseAdapters(list string) ([]string, error) {
	var all []string
	for _, n := range engine.Names(engine.InMemory) {
		if !isTestOnly(n) {
			all = append(all, n)
		}
	}
	valid := func() string { return strings.Join(all, ", ") }
	if l := strings.TrimSpace(list); l == "" || l == "memory" {
		if len(all) == 0 {
			return nil, errors.New("no in-memory adapter is registered")
		}
		return all, nil
	}
	var names []string
	seen := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		fac, err := engine.Lookup(n)
		if err != nil {
			return nil, fmt.Errorf("--adapters: unknown adapter %q (valid: %s)", n, valid())
		}
		if fac.Kind != engine.InMemory {
			return nil, fmt.Errorf("--adapters: %s is a %s adapter; gc-pause measures in-memory adapters (valid: %s)", n, fac.Kind, valid())
		}
		seen[n] = true
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("--adapters selects no adapter (valid: %s)", valid())
	}
	return names, nil
}

// childConfig validates the measurement flags, naming the bad flag.
func (f *gcPauseFlags) childConfig() (gcpause.ChildConfig, error) {
	switch {
	case f.entries < 1 || f.entries > gcpause.MaxEntries:
		return gcpause.ChildConfig{}, fmt.Errorf("--entries must be in 1..%d, got %d", gcpause.MaxEntries, f.entries)
	case f.valueSize < gcpause.MinValueSize || f.valueSize > gcpause.MaxValueSize:
		return gcpause.ChildConfig{}, fmt.Errorf("--value-size must be in %d..%d bytes (values carry a 16-byte index and check), got %d",
			gcpause.MinValueSize, gcpause.MaxValueSize, f.valueSize)
	case f.gogc < -1 || f.gogc == 0:
		// GOGC=0 would run collections back to back during the whole
		// fill: a measurement of the collector, not of the cache.
		return gcpause.ChildConfig{}, fmt.Errorf("--gogc must be -1 (off) or a positive percentage, got %d", f.gogc)
	case f.verify < 0 || f.verify > gcpause.MaxVerify:
		return gcpause.ChildConfig{}, fmt.Errorf("--verify must be in 0..%d, got %d", gcpause.MaxVerify, f.verify)
	case f.repetition < 0:
		return gcpause.ChildConfig{}, fmt.Errorf("--repetition must not be negative, got %d", f.repetition)
	}
	return gcpause.ChildConfig{
		Entries: f.entries, ValueSize: f.valueSize, GOGC: f.gogc, Seed: f.seed, Verify: f.verify, Repetition: f.repetition,
	}, nil
}

// runGCPauseChild is the child side: measure one adapter, print the JSON.
func runGCPauseChild(ctx context.Context, stdout, stderr io.Writer, f *gcPauseFlags) error {
	cc, err := f.childConfig()
	if err != nil {
		return usageError{err}
	}
	if _, err := gcPauseAdapters(f.child); err != nil {
		return usageError{err}
	}
	cc.Adapter = f.child
	out, err := gcpause.RunChild(ctx, cc, stderr)
	if err != nil {
		return err
	}
	if err := json.NewEncoder(stdout).Encode(out); err != nil {
		return fmt.Errorf("write child result: %w", err)
	}
	return nil
}

// gcPauseChildArgs is the command line of a child.
func gcPauseChildArgs(cc gcpause.ChildConfig) []string {
	return []string{"gc-pause", "--child", cc.Adapter,
		"--entries", strconv.Itoa(cc.Entries),
		"--value-size", strconv.Itoa(cc.ValueSize),
		"--gogc", strconv.Itoa(cc.GOGC),
		"--seed", strconv.FormatUint(cc.Seed, 10),
		"--verify", strconv.Itoa(cc.Verify),
		"--repetition", strconv.Itoa(cc.Repetition),
	}
}

func runGCPause(ctx context.Context, stdout, stderr io.Writer, f *gcPauseFlags) error {
	// Validate everything before measuring anything.
	adapters, err := gcPauseAdapters(f.adapters)
	if err != nil {
		return usageError{err}
	}
	cc, err := f.childConfig()
	if err != nil {
		return usageError{err}
	}
	if err := checkFormat(f.format, formats); err != nil {
		return usageError{err}
	}
	switch {
	case f.count < 1 || f.count > 1000:
		return usageErrorf("--count must be in 1..1000, got %d", f.count)
	case f.repetition != 0:
		return usageErrorf("--repetition is only for --child")
	}
	showBars := false
	switch f.progress {
	case "always":
		showBars = true
	case "auto":
		showBars = isTerminal(stderr)
	case "never":
	default:
		return usageErrorf("unknown --progress %q (valid: auto, always, never)", f.progress)
	}
	if f.output != "" {
		if err := report.CheckWritable(f.output); err != nil {
			return usageErrorf("-o: %w", err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable to re-execute per adapter: %w", err)
	}

	env := machine.Env()
	// The children set GOGC themselves; the parent's environment value
	// would mislead.
	env.GOGC = strconv.Itoa(cc.GOGC)
	genNs := keyGenCost(cc)
	budget := gcpause.MemoryBudget(cc.Entries, cc.ValueSize)
	fmt.Fprintf(stderr, "cachebench gc-pause: %s, %d logical cores; %d entries of %d+%d bytes, GOGC=%d, memory budget %s; %d adapters × %d repetitions, one child each\n",
		env.CPUModel, env.LogicalCores, cc.Entries, gcpause.KeyLen, cc.ValueSize, cc.GOGC, gcPauseBytes(float64(budget)), len(adapters), f.count)

	obs := newGCPauseObserver(stderr, showBars, cc.Entries, f.count)
	started := time.Now()
	out, runErr := gcpause.Run(ctx, gcpause.Config{
		Adapters: adapters,
		Count:    f.count,
		Child:    cc,
		Exe:      exe,
		Args:     gcPauseChildArgs,
		Env:      []string{gcPauseChildEnv + "=1"},
		Observer: obs.observer(),
	})
	obs.finish()
	if out == nil {
		return runErr
	}
	res := &report.Result{
		Schema:      report.SchemaVersion,
		Tool:        "cachebench",
		Kind:        report.KindGCPause,
		Started:     started,
		Duration:    report.Duration(time.Since(started)),
		Interrupted: runErr != nil && errors.Is(runErr, context.Canceled),
		Env:         env,
		GCPause:     out.GCPause,
		Config: map[string]string{
			"adapters":             strings.Join(adapters, ","),
			"entries":              strconv.Itoa(cc.Entries),
			"value_size":           strconv.Itoa(cc.ValueSize),
			"key_format":           "key-%010d",
			"gogc":                 strconv.Itoa(cc.GOGC),
			"count":                strconv.Itoa(f.count),
			"seed":                 strconv.FormatUint(cc.Seed, 10),
			"verify":               strconv.Itoa(cc.Verify),
			"memory_budget_bytes":  strconv.FormatInt(budget, 10),
			"entry_overhead_bytes": strconv.Itoa(runner.EntryOverhead),
			"insert_headroom":      strconv.FormatFloat(runner.InsertHeadroom, 'g', -1, 64),
			"keygen_ns_per_entry":  strconv.FormatFloat(genNs, 'f', 1, 64),
			"child_gomaxprocs":     strconv.Itoa(runtime.GOMAXPROCS(0)),
			"fill":                 "adapter construction + every Set + Drain; includes generating each key and value into reused buffers (keygen_ns_per_entry)",
			"forced_gc":            "wall time of the second of two back-to-back runtime.GC() after the fill (the first finishes the fill's cycle and garbage)",
			"pauses":               "/sched/pauses/total/gc:seconds from before the fill to after the forced GC; max = upper bound of the highest non-empty bucket (up to 25% high), total from bucket midpoints (within 12.5%)",
			"gc_cpu":               "/cpu/classes/gc/total:cpu-seconds: cycles completed during the fill; the forced GC alone",
			"rss_per_entry":        "(VmHWM at the end − VmRSS before the adapter was built) / entries",
			"get_during_gc":        "Gets of random pre-generated keys from one goroutine, each timed, from just before runtime.GC until it returns; a short collection gives few samples, whose tail is set by the Gets that straddle a STW pause",
		},
	}
	if len(out.Configs) > 0 {
		res.Adapters = map[string]map[string]string{}
		for name, c := range out.Configs {
			res.Adapters[name+"@gc-pause"] = c
		}
	}
	if err := writeResult(stdout, f.output, f.format, res); err != nil {
		return err
	}
	if runErr != nil {
		if errors.Is(runErr, context.Canceled) {
			return fmt.Errorf("interrupted: the %d child results measured so far were written", len(out.GCPause))
		}
		return runErr
	}
	failed := 0
	for _, p := range out.GCPause {
		if p.Error != "" {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d child runs failed (see above)", failed, len(out.GCPause))
	}
	return nil
}

// keyGenCost measures, in this process, what generating one key and one
// value costs: the fill time includes it, and the manifest says how much.
func keyGenCost(cc gcpause.ChildConfig) float64 {
	n := min(cc.Entries, 1_000_000)
	kbuf := make([]byte, gcpause.KeyLen)
	vbuf := make([]byte, cc.ValueSize)
	var sink byte
	start := time.Now()
	for i := 0; i < n; i++ {
		k := gcpause.FormatKey(kbuf, uint64(i))
		gcpause.FillValue(vbuf, uint64(i))
		sink ^= k[len(k)-1] ^ vbuf[len(vbuf)-1]
	}
	el := time.Since(start)
	gcPauseSink = sink
	return float64(el.Nanoseconds()) / float64(n)
}

// gcPauseSink keeps keyGenCost's loop from being optimised away.
var gcPauseSink byte

// gcPauseObserver shows a progress bar per child (when enabled) and one
// summary line per child on stderr.
type gcPauseObserver struct {
	w       io.Writer
	bars    bool
	entries int
	count   int
	mu      sync.Mutex
	bar     *progressbar.ProgressBar
	phase   string
	label   string
}

func newGCPauseObserver(w io.Writer, bars bool, entries, count int) *gcPauseObserver {
	return &gcPauseObserver{w: w, bars: bars, entries: entries, count: count}
}

func (o *gcPauseObserver) observer() gcpause.Observer {
	return gcpause.Observer{
		Start: func(adapter string, rep int) {
			o.mu.Lock()
			defer o.mu.Unlock()
			o.label = fmt.Sprintf("%s #%d/%d", adapter, rep+1, o.count)
			o.phase = ""
			if o.bars {
				o.bar = progressbar.NewOptions64(int64(o.entries),
					progressbar.OptionSetWriter(o.w),
					progressbar.OptionSetDescription(o.label+" starting"),
					progressbar.OptionSetWidth(30),
					progressbar.OptionShowCount(),
					progressbar.OptionSetPredictTime(true),
					progressbar.OptionThrottle(100*time.Millisecond),
					progressbar.OptionClearOnFinish())
			}
		},
		Progress: func(_ string, _ int, phase string, done, total int64) {
			o.mu.Lock()
			defer o.mu.Unlock()
			if o.bar == nil {
				return
			}
			if phase != o.phase {
				o.phase = phase
				o.bar.Describe(o.label + " " + phase)
				o.bar.ChangeMax64(max(total, 1))
			}
			_ = o.bar.Set64(done)
		},
		Log: func(_ string, _ int, line string) {
			o.mu.Lock()
			defer o.mu.Unlock()
			o.clear()
			fmt.Fprintf(o.w, "  %s: %s\n", o.label, line)
		},
		Done: func(co *gcpause.ChildOutput) {
			o.mu.Lock()
			defer o.mu.Unlock()
			o.clear()
			o.bar = nil
			p := co.GCPause
			if p.Error != "" {
				fmt.Fprintf(o.w, "%s: FAILED: %s\n", o.label, p.Error)
				return
			}
			fmt.Fprintf(o.w, "%s: fill %s (%d GC cycles, GC CPU %s) · forced GC %s (CPU %s) · STW %d, max %s · %s heap objects · peak RSS %s · Get p99.9 during GC %s · verified %d, missing %d, wrong %d\n",
				o.label, gcPauseSecs(p.FillSeconds), co.FillGCCycles, gcPauseSecs(p.FillGCCPUSeconds), gcPauseSecs(p.ForcedGCSeconds), gcPauseSecs(p.ForcedGCCPUSecond),
				p.PauseCount, gcPauseSecs(p.PauseMaxSeconds), strconv.FormatUint(p.HeapObjects, 10), gcPauseBytes(float64(p.PeakRSSBytes)),
				time.Duration(p.GetDuringGC.P999).String(), p.Verified, p.Missing, p.Wrong)
		},
	}
}

// clear removes the bar's line before other output is written.
func (o *gcPauseObserver) clear() {
	if o.bar != nil {
		_ = o.bar.Clear()
	}
}

func (o *gcPauseObserver) finish() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.clear()
	o.bar = nil
}

// gcPauseSecs renders seconds as a rounded duration.
func gcPauseSecs(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(100 * time.Nanosecond).String()
}

// gcPauseBytes renders a byte count with a binary unit.
func gcPauseBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return strconv.FormatFloat(b, 'f', 1, 64) + " " + units[i]
}
