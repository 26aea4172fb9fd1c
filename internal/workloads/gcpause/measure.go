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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cachebench/cachebench/internal/report"
)

// Config is what the parent runs.
type Config struct {
	// Adapters are measured in this order, each repetition in turn
	// (A B C A B C ...), so that drift of the machine hits all alike.
	Adapters []string
	// Count is the number of repetitions, each in a fresh child.
	Count int
	// Child is the template of every child's configuration; Adapter and
	// Repetition are set per child.
	Child ChildConfig
	// Exe is the program to run (normally os.Executable()).
	Exe string
	// Args returns the command line arguments that make Exe run RunChild
	// with the given configuration and print its ChildOutput as JSON.
	Args func(ChildConfig) []string
	// Env is added to the parent's environment for the child.
	Env []string
	// Observer is told about each child; every field may be nil.
	Observer Observer
}

// Observer receives events about the children. Progress and Log are
// called from a goroutine reading the child's stderr, Start and Done from
// the goroutine that called Run; calls never overlap.
type Observer struct {
	Start    func(adapter string, rep int)
	Progress func(adapter string, rep int, phase string, done, total int64)
	Log      func(adapter string, rep int, line string)
	Done     func(out *ChildOutput)
}

// Outcome is what the children measured.
type Outcome struct {
	// GCPause holds one entry per finished child, in run order; a child
	// that failed has Error set. A child cut off by cancellation has no
	// entry.
	GCPause []report.GCPause
	// Configs maps each adapter to its effective configuration, as its
	// first successful child reported it.
	Configs map[string]map[string]string
}

// maxChildOutput bounds what is read from a child's stdout: a ChildOutput
// is a few KiB, anything much larger is not one.
const maxChildOutput = 4 << 20

// stderrTail is the number of a child's last log lines quoted when it
// fails.
const stderrTail = 8

// Run runs cfg.Count × len(cfg.Adapters) children one after the other.
// A child that fails is recorded with its error and the run goes on. When
// ctx is cancelled, the running child is killed and Run returns what was
// measured so far with ctx's error.
func Run(ctx context.Context, cfg Config) (*Outcome, error) {
	if cfg.Exe == "" || cfg.Args == nil {
		return nil, errors.New("gcpause: Config needs Exe and Args")
	}
	if cfg.Count < 1 {
		return nil, fmt.Errorf("gcpause: count must be positive, got %d", cfg.Count)
	}
	out := &Outcome{Configs: map[string]map[string]string{}}
	for rep := 0; rep < cfg.Count; rep++ {
		for _, name := range cfg.Adapters {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			cc := cfg.Child
			cc.Adapter, cc.Repetition = name, rep
			if cfg.Observer.Start != nil {
				cfg.Observer.Start(name, rep)
			}
			co, err := runChild(ctx, cfg, cc)
			if err != nil {
				if ctx.Err() != nil {
					return out, ctx.Err()
				}
				co = &ChildOutput{GCPause: report.GCPause{
					Adapter: name, Entries: cc.Entries, ValueSize: cc.ValueSize, GOGC: cc.GOGC, Repetition: rep,
					Error: err.Error(),
				}}
			} else if _, seen := out.Configs[name]; !seen && co.Config != nil {
				out.Configs[name] = co.Config
			}
			out.GCPause = append(out.GCPause, co.GCPause)
			if cfg.Observer.Done != nil {
				cfg.Observer.Done(co)
			}
		}
	}
	return out, nil
}

// runChild runs one child and decodes its result.
func runChild(ctx context.Context, cfg Config, cc ChildConfig) (*ChildOutput, error) {
	cmd := exec.CommandContext(ctx, cfg.Exe, cfg.Args(cc)...)
	cmd.Env = append(os.Environ(), cfg.Env...)
	isolate(cmd)
	cmd.Cancel = func() error { return kill(cmd) }
	// After the kill, do not wait forever for a grandchild holding the
	// pipes open.
	cmd.WaitDelay = 5 * time.Second
	stdout := &limitedBuffer{max: maxChildOutput}
	cmd.Stdout = stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("stderr pipe for %s: %w", cfg.Exe, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cfg.Exe, err)
	}
	tail := readChildStderr(stderr, cfg.Observer, cc)
	waitErr := cmd.Wait()
	if waitErr != nil {
		return nil, describeExit(waitErr, tail)
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

// readChildStderr reads the child's stderr to its end, turning progress
// lines into Observer.Progress calls and other lines into Observer.Log
// calls, and returns the last stderrTail log lines.
func readChildStderr(r io.Reader, obs Observer, cc ChildConfig) []string {
	var tail []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, ProgressPrefix); ok {
			if phase, done, total, ok := parseProgress(rest); ok {
				if obs.Progress != nil {
					obs.Progress(cc.Adapter, cc.Repetition, phase, done, total)
				}
				continue
			}
		}
		if obs.Log != nil {
			obs.Log(cc.Adapter, cc.Repetition, line)
		}
		if len(tail) == stderrTail {
			tail = tail[1:]
		}
		tail = append(tail, line)
	}
	// A line longer than the buffer ends the scan; drain the rest so the
	// child never blocks on a full pipe.
	_, _ = io.Copy(io.Discard, r)
	return tail
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
// ended.
func describeExit(err error, tail []string) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			hint := ""
			if ws.Signal() == syscall.SIGKILL {
				hint = " (the kernel's OOM killer sends SIGKILL: out of memory?)"
			}
			return fmt.Errorf("child killed by signal %v%s%s", ws.Signal(), hint, quoteTail(tail))
		}
		return fmt.Errorf("child exited with status %d%s", ee.ExitCode(), quoteTail(tail))
	}
	return fmt.Errorf("child: %w%s", err, quoteTail(tail))
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
