package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// progress is the one progress display of the commands: a status line on
// stderr, rewritten in place, shown only when asked to or when stderr is a
// terminal (stdout carries results, and a log file must not fill with
// carriage returns), and log lines printed above it. It is safe for
// concurrent use, and every method of a nil *progress does nothing.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	enabled bool
	start   time.Time
	width   int
	last    time.Time
}

// progressModes are the values of --progress.
const progressModes = "auto, always, never"

// showProgress is the one parser of --progress: auto (only when w is a
// terminal), always or never.
func showProgress(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		return isTerminal(w), nil
	}
	return false, fmt.Errorf("unknown --progress %q (valid: %s)", mode, progressModes)
}

// newProgress returns the display for a --progress mode writing to w.
func newProgress(mode string, w io.Writer) (*progress, error) {
	enabled, err := showProgress(mode, w)
	if err != nil {
		return nil, err
	}
	return &progress{w: w, enabled: enabled, start: time.Now()}, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressInterval throttles redraws of update: a caller may report every
// few thousand operations.
const progressInterval = 100 * time.Millisecond

// update shows step done of total with a description; it redraws at most
// every progressInterval unless the step is the last.
func (p *progress) update(done, total int, desc string) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if done < total && now.Sub(p.last) < progressInterval {
		return
	}
	p.last = now
	pct := 0
	if total > 0 {
		pct = done * 100 / total
	}
	p.show(fmt.Sprintf("[%3d%% %d/%d %s] %s", pct, done, total, time.Since(p.start).Round(time.Second), desc))
}

// message shows a free-form status line.
func (p *progress) message(s string) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.show(s)
}

// println writes a log line, always (whether or not the status line is
// shown), above the status line; the next update redraws the status.
func (p *progress) println(line string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintln(p.w, line)
	p.last = time.Time{}
}

// finish clears the status line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

func (p *progress) show(s string) {
	pad := max(p.width-len(s), 0)
	fmt.Fprintf(p.w, "\r%s%*s", s, pad, "")
	p.width = len(s)
}

func (p *progress) clear() {
	if !p.enabled || p.width == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%*s\r", p.width, "")
	p.width = 0
}
