package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// progress is the one progress display of the commands, on stderr (stdout
// carries results). It has two forms: on a terminal a status line
// rewritten in place, and elsewhere (a log file, a pipe, CI) plain lines,
// one per step (adapter, phase, replay) and a heartbeat every
// plainHeartbeat within a long step, so a run is never silent for long
// and a log never fills with carriage returns. Log lines (println) are
// printed in both forms, above the status line. It is safe for concurrent
// use, and every method of a nil *progress does nothing.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	form   progressForm
	start  time.Time
	width  int       // length of the status line on screen (formStatus)
	last   time.Time // last redraw (formStatus) or line (formLines)
	lastIs string    // the step of the last plain line (formLines)
	// stop ends the heartbeat goroutine of formLines (nil until the
	// first step starts it).
	stop chan struct{}
	// heartbeat is plainHeartbeat when the display was made: read once,
	// so a heartbeat goroutine never reads the variable tests change.
	heartbeat time.Duration
}

// progressForm is how progress is shown.
type progressForm int

const (
	formNone   progressForm = iota // only log lines
	formLines                      // a plain line per step
	formStatus                     // a status line rewritten in place
)

// progressModes are the values of --progress.
const progressModes = "auto, always, never"

// progressHelp is the usage text of every command's --progress flag.
const progressHelp = "progress on stderr: auto (a status line on a terminal, else a plain line per step), always (the status line) or never"

// showProgress is the one parser of --progress: auto (a status line when w
// is a terminal, plain lines otherwise), always (the status line) or never.
func showProgress(mode string, w io.Writer) (progressForm, error) {
	switch mode {
	case "always":
		return formStatus, nil
	case "never":
		return formNone, nil
	case "auto":
		if isTerminal(w) {
			return formStatus, nil
		}
		return formLines, nil
	}
	return formNone, fmt.Errorf("unknown --progress %q (valid: %s)", mode, progressModes)
}

// newProgress returns the display for a --progress mode writing to w.
func newProgress(mode string, w io.Writer) (*progress, error) {
	form, err := showProgress(mode, w)
	if err != nil {
		return nil, err
	}
	return &progress{w: w, form: form, start: time.Now(), heartbeat: plainHeartbeat}, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressInterval throttles redraws of the status line: a caller may
// report every few thousand operations.
const progressInterval = 100 * time.Millisecond

// plainHeartbeat is the longest a plain-line display stays silent while a
// step runs (a variable for tests).
var plainHeartbeat = 5 * time.Second

// update shows step done of total with a description. The status line
// redraws at most every progressInterval unless the step is the last;
// plain lines are written when desc changes, or every plainHeartbeat.
func (p *progress) update(done, total int, desc string) {
	if p == nil || p.form == formNone {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	elapsed := time.Since(p.start).Round(time.Second)
	pct := 0
	if total > 0 {
		pct = done * 100 / total
	}
	if p.form == formLines {
		p.startHeartbeat()
		if desc == p.lastIs && now.Sub(p.last) < p.heartbeat {
			return
		}
		p.last, p.lastIs = now, desc
		fmt.Fprintf(p.w, "cachebench: [%d%% %d/%d %s] %s\n", pct, done, total, elapsed, desc)
		return
	}
	if done < total && now.Sub(p.last) < progressInterval {
		return
	}
	p.last = now
	p.show(fmt.Sprintf("[%3d%% %d/%d %s] %s", pct, done, total, elapsed, desc))
}

// message shows a free-form status: the status line, or a plain line.
func (p *progress) message(s string) {
	if p == nil || p.form == formNone {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.form == formLines {
		p.startHeartbeat()
		if s != p.lastIs {
			p.last, p.lastIs = time.Now(), s
			fmt.Fprintln(p.w, "cachebench:", s)
		}
		return
	}
	p.show(s)
}

// startHeartbeat starts, once, the goroutine that repeats the current
// step of a plain-line display when no line was written for
// plainHeartbeat: a step (one adapter's repetition, a phase of a child)
// can take longer than that without reporting. Called with p.mu held.
func (p *progress) startHeartbeat() {
	if p.stop != nil {
		return
	}
	p.stop = make(chan struct{})
	go func(stop chan struct{}) {
		t := time.NewTicker(p.heartbeat / 5)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				p.mu.Lock()
				if p.lastIs != "" && now.Sub(p.last) >= p.heartbeat {
					p.last = now
					fmt.Fprintf(p.w, "cachebench: [%s] still: %s\n", time.Since(p.start).Round(time.Second), p.lastIs)
				}
				p.mu.Unlock()
			}
		}
	}(p.stop)
}

// println writes a log line, always (whatever the form), above the status
// line: the status line is cleared first, and the next update redraws it.
func (p *progress) println(line string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintln(p.w, line)
	if p.form == formLines {
		p.last = time.Now() // a line was written: the heartbeat waits
	} else {
		p.last = time.Time{} // the next update redraws the status
	}
}

// finish clears the status line and stops the heartbeat; it may be
// called more than once.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
		p.lastIs = "" // a later step starts a new heartbeat
	}
}

func (p *progress) show(s string) {
	pad := max(p.width-len(s), 0)
	fmt.Fprintf(p.w, "\r%s%*s", s, pad, "")
	p.width = len(s)
}

func (p *progress) clear() {
	if p.form != formStatus || p.width == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%*s\r", p.width, "")
	p.width = 0
}
