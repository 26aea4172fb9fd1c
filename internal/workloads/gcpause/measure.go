package gcpause

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cachebench/cachebench/internal/procgroup"
	"github.com/cachebench/cachebench/internal/report"
)

// maxChildOutput bounds what is read from a child's stdout: a ChildOutput
// is a few KiB, anything much larger is not one.
const maxChildOutput = 4 << 20

// stderrTail is the number of a child's last log lines quoted when it
// fails.
const stderrTail = 8

// Measure runs cfg.Count × len(cfg.Adapters) child processes one after the
// other, each a fresh copy of this executable measuring one adapter (see
// ServeChild), and returns the run as a gc-pause result, like the runner
// returns a run's. A child that fails (out of memory, crash) is recorded
// with its error and the run goes on; the error returned then says how
// many failed. When ctx is cancelled, the running child is killed and
// Measure returns what was measured so far, marked interrupted, with an
// error wrapping ctx's. The result is nil only when nothing could start.
func Measure(ctx context.Context, cfg Config) (*report.Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own executable to re-execute per adapter: %w", err)
	}
	started := time.Now()
	res, err := newResult(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("interrupted before any child started: %w", err)
	}
	cfg.log(fmt.Sprintf("cachebench gc-pause: %s, %d logical cores; %d entries of %d+%d bytes, GOGC=%d, memory budget %s; %d adapters × %d repetitions, one child each",
		res.Env.CPUModel, res.Env.LogicalCores, cfg.Entries, KeyLen, cfg.ValueSize, cfg.GOGC,
		report.FormatBytes(float64(cfg.Budget().MemoryBytes)), len(cfg.Adapters), cfg.Count))
	configs := map[string]map[string]string{}
	var runErr error
	failed := 0
	var repWall time.Duration // of the first repetition
loop:
	for rep := 0; rep < cfg.Count; rep++ {
		repStart := time.Now()
		if rep > 0 {
			// Repetitions are alike: the first one's wall time says how
			// long the rest take, more closely than EstimateRun could.
			left := time.Duration(cfg.Count-rep) * repWall
			cfg.log(fmt.Sprintf("repetition %d/%d took %s; about %s to go (done around %s)",
				rep, cfg.Count, repWall.Round(time.Second), left.Round(time.Second), time.Now().Add(left).Format("15:04")))
		}
		for _, name := range cfg.Adapters {
			if runErr = ctx.Err(); runErr != nil {
				break loop
			}
			cc := ChildConfig{Params: cfg.Params, Adapter: name, Repetition: rep}
			label := fmt.Sprintf("%s #%d/%d", name, rep+1, cfg.Count)
			co, err := runChild(ctx, exe, cc, cfg.child(label))
			if err != nil {
				if runErr = ctx.Err(); runErr != nil {
					break loop
				}
				failed++
				co = &ChildOutput{GCPause: report.GCPause{
					Adapter: name, Entries: cc.Entries, ValueSize: cc.ValueSize, GOGC: cc.GOGC, Repetition: rep,
					Error: err.Error(),
				}}
			} else if _, seen := configs[name]; !seen && co.Config != nil {
				configs[name] = co.Config
			}
			res.GCPause = append(res.GCPause, co.GCPause)
			cfg.log(label + ": " + summary(co))
		}
		if rep == 0 {
			repWall = time.Since(repStart)
		}
	}
	for name, c := range configs {
		if res.Adapters == nil {
			res.Adapters = map[string]map[string]string{}
		}
		res.Adapters[name+"@gc-pause"] = c
	}
	res.Started, res.Duration = started, report.Duration(time.Since(started))
	switch {
	case runErr != nil:
		res.Interrupted = true
		return res, fmt.Errorf("interrupted: the %d child results measured so far were kept: %w", len(res.GCPause), runErr)
	case failed > 0:
		return res, fmt.Errorf("%d of %d child runs failed (see above)", failed, len(res.GCPause))
	}
	return res, nil
}

func (c Config) log(line string) {
	if c.Log != nil {
		c.Log(line)
	}
}

// childEvents routes one child's stderr: progress lines and log lines.
type childEvents struct {
	progress func(phase string, done, total int64)
	log      func(line string)
}

// child returns the events of the child labelled label.
func (c Config) child(label string) childEvents {
	return childEvents{
		progress: func(phase string, done, total int64) {
			if c.Progress != nil {
				c.Progress(int(done), int(total), label+" "+phase)
			}
		},
		log: func(line string) { c.log("  " + label + ": " + line) },
	}
}

// summary is the one line a finished child leaves on the log.
func summary(co *ChildOutput) string {
	p := co.GCPause
	if p.Error != "" {
		return "FAILED: " + p.Error
	}
	bound := ""
	if p.GCReads.TimeBound {
		bound = ", time bound hit"
	}
	return fmt.Sprintf("fill %s (%d GC cycles, GC CPU %s) · forced GC %s (CPU %s) · STW %d, max %s · %d heap objects · peak RSS %s · Get p99 / p99.9 in GC %s / %s, outside %s / %s (%d in-GC Gets over %d cycles%s) · verified %d, missing %d, wrong %d",
		fmtSecs(p.FillSeconds), co.FillGCCycles, fmtSecs(p.FillGCCPUSeconds), fmtSecs(p.ForcedGCSeconds), fmtSecs(p.ForcedGCCPUSecond),
		p.PauseCount, fmtSecs(p.PauseMaxSeconds), p.HeapObjects, report.FormatBytes(float64(p.PeakRSSBytes)),
		time.Duration(p.GetDuringGC.P99), time.Duration(p.GetDuringGC.P999), time.Duration(p.GetOutsideGC.P99), time.Duration(p.GetOutsideGC.P999),
		p.GetDuringGC.Samples, p.GCReads.Cycles, bound, p.Verified, p.Missing, p.Wrong)
}

// runChild runs one child and decodes its result.
func runChild(ctx context.Context, exe string, cc ChildConfig, ev childEvents) (*ChildOutput, error) {
	cmd, err := childCommand(ctx, exe, cc)
	if err != nil {
		return nil, err
	}
	// Its own process group, so that a Ctrl-C on the terminal reaches only
	// the parent, which then ends the child itself (and can still write
	// what was measured).
	procgroup.Isolate(cmd)
	cmd.Cancel = func() error { return procgroup.Kill(cmd.Process) }
	// After the kill, do not wait forever for a grandchild holding the
	// pipes open.
	cmd.WaitDelay = 5 * time.Second
	stdout := &limitedBuffer{max: maxChildOutput}
	cmd.Stdout = stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("stderr pipe for %s: %w", exe, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", exe, err)
	}
	log := readChildStderr(stderr, ev)
	tail := log.tail
	waitErr := cmd.Wait()
	if waitErr != nil {
		return nil, describeExit(waitErr, log)
	}
	if stdout.truncated {
		return nil, fmt.Errorf("child wrote more than %d bytes on stdout", maxChildOutput)
	}
	var co ChildOutput
	dec := json.NewDecoder(bytes.NewReader(stdout.buf.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&co); err != nil {
		return nil, fmt.Errorf("child output is not a result: %w%s", err, quoteTail(tail))
	}
	if g := co.GCPause; g.Adapter != cc.Adapter || g.Repetition != cc.Repetition {
		return nil, fmt.Errorf("child measured adapter %q repetition %d, want %q repetition %d",
			g.Adapter, g.Repetition, cc.Adapter, cc.Repetition)
	}
	return &co, nil
}

// childLog is what a failed child's report quotes from its stderr.
type childLog struct {
	// tail is the last stderrTail log lines.
	tail []string
	// crash is the first crashLines non-empty lines from the first line
	// that starts a Go crash report (panic, fatal error, a signal), and
	// signal the signal that report names ("SIGSEGV"), if any.
	crash  []string
	signal string
}

// crashLines is how many lines of a crash report are quoted: its header,
// the faulting address and the first frames, not the register dump that
// ends a report of a signal.
const crashLines = 6

// crashStart matches the first line of a Go crash report on stderr;
// its first group, if any, is the signal ("SIGSEGV: segmentation
// violation", "[signal SIGBUS: bus error ...]").
var crashStart = regexp.MustCompile(`^(?:panic: |fatal error: |unexpected fault address|(?:\[signal )?(SIG[A-Z0-9]+): )`)

// readChildStderr reads the child's stderr to its end, turning progress
// lines into progress events and other lines into log events, and returns
// what a report of its failure quotes.
func readChildStderr(r io.Reader, ev childEvents) childLog {
	var log childLog
	inCrash := false
	var tail []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, ProgressPrefix); ok {
			if phase, done, total, ok := parseProgress(rest); ok {
				ev.progress(phase, done, total)
				continue
			}
		}
		ev.log(line)
		if len(tail) == stderrTail {
			tail = tail[1:]
		}
		tail = append(tail, line)
		if m := crashStart.FindStringSubmatch(line); m != nil {
			inCrash = true
			if log.signal == "" {
				log.signal = m[1]
			}
		}
		if inCrash && len(log.crash) < crashLines && strings.TrimSpace(line) != "" {
			log.crash = append(log.crash, line)
		}
	}
	// A line longer than the buffer ends the scan; drain the rest so the
	// child never blocks on a full pipe.
	_, _ = io.Copy(io.Discard, r)
	log.tail = tail
	return log
}

// parseProgress parses " PHASE DONE TOTAL".
func parseProgress(s string) (phase string, done, total int64, ok bool) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return "", 0, 0, false
	}
	d, err1 := strconv.ParseInt(f[1], 10, 64)
	t, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || d < 0 || t < 0 {
		return "", 0, 0, false
	}
	return f[0], d, t, true
}

// describeExit turns a failed Wait into an error that says how the child
// ended: "child killed by SIGSEGV" when a signal ended it, or when the Go
// runtime caught one and reported it before exiting (status 2), quoting
// the first lines of that report, which say where it happened; otherwise
// the exit status and the last log lines.
func describeExit(err error, log childLog) error {
	quote := quoteTail(log.tail)
	if len(log.crash) > 0 {
		quote = quoteTail(log.crash)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			hint := ""
			if ws.Signal() == syscall.SIGKILL {
				hint = " (the kernel's OOM killer sends SIGKILL: out of memory?)"
			}
			return fmt.Errorf("child killed by %s%s%s", signalName(ws.Signal()), hint, quote)
		}
		if log.signal != "" {
			return fmt.Errorf("child killed by %s (caught by the Go runtime, exit status %d)%s", log.signal, ee.ExitCode(), quote)
		}
		return fmt.Errorf("child exited with status %d%s", ee.ExitCode(), quote)
	}
	return fmt.Errorf("child: %w%s", err, quote)
}

func quoteTail(tail []string) string {
	if len(tail) == 0 {
		return ""
	}
	return ": " + strings.Join(tail, " | ")
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	buf       bytes.Buffer
	max       int
	truncated bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); len(p) > room {
		b.buf.Write(p[:max(room, 0)])
		b.truncated = true
		return len(p), nil
	}
	return b.buf.Write(p)
}
