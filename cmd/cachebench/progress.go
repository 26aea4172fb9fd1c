package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// progress prints a one-line status on stderr, rewritten in place, and
// only when asked to or when stderr is a terminal: stdout carries results
// and a log file must not fill with carriage returns.
type progress struct {
	w       io.Writer
	enabled bool
	start   time.Time
	width   int
}

// newProgress parses a --progress mode (auto, always, never).
func newProgress(mode string, w io.Writer) (*progress, error) {
	p := &progress{w: w, start: time.Now()}
	switch mode {
	case "always":
		p.enabled = true
	case "never":
	case "auto":
		p.enabled = isTerminal(w)
	default:
		return nil, fmt.Errorf("unknown --progress %q (valid: auto, always, never)", mode)
	}
	return p, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// update shows step done of total with a description.
func (p *progress) update(done, total int, desc string) {
	if p == nil || !p.enabled {
		return
	}
	pct := 0
	if total > 0 {
		pct = done * 100 / total
	}
	p.message(fmt.Sprintf("[%3d%% %d/%d %s] %s", pct, done, total, time.Since(p.start).Round(time.Second), desc))
}

// message shows a free-form status line.
func (p *progress) message(s string) {
	if p == nil || !p.enabled {
		return
	}
	pad := p.width - len(s)
	if pad < 0 {
		pad = 0
	}
	fmt.Fprintf(p.w, "\r%s%*s", s, pad, "")
	p.width = len(s)
}

// finish clears the status line.
func (p *progress) finish() {
	if p == nil || !p.enabled || p.width == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%*s\r", p.width, "")
	p.width = 0
}
