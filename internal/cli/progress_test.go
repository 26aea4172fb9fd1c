package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestShowProgressModes(t *testing.T) {
	var buf bytes.Buffer // not a terminal
	for mode, want := range map[string]progressForm{"always": formStatus, "never": formNone, "auto": formLines} {
		got, err := showProgress(mode, &buf)
		if err != nil || got != want {
			t.Errorf("%s: %v, %v; want %v", mode, got, err, want)
		}
	}
	if _, err := showProgress("sometimes", &buf); err == nil || !strings.Contains(err.Error(), "--progress") {
		t.Fatalf("bad mode: %v", err)
	}
}

func TestProgressLinesAndStatus(t *testing.T) {
	var buf bytes.Buffer
	p, err := newProgress("always", &buf)
	if err != nil {
		t.Fatal(err)
	}
	p.update(1, 4, "map #1/1 fill")
	p.update(2, 4, "map #1/1 fill") // within the throttle interval: not drawn
	p.println("map #1/1: fill 1s")
	p.update(4, 4, "done") // the last step is always drawn
	p.finish()
	out := buf.String()
	if !strings.Contains(out, "[ 25% 1/4 0s] map #1/1 fill") || strings.Contains(out, "2/4") {
		t.Fatalf("status lines: %q", out)
	}
	// The log line starts on a cleared line and ends with a newline; the
	// status is cleared at the end.
	if !strings.Contains(out, "\r\rmap #1/1: fill 1s\n") && !strings.Contains(out, "\rmap #1/1: fill 1s\n") {
		t.Fatalf("log line not written over a cleared status: %q", out)
	}
	if !strings.HasSuffix(out, "\r") || !strings.Contains(out, "100% 4/4") {
		t.Fatalf("end: %q", out)
	}

	buf.Reset()
	quiet, _ := newProgress("never", &buf)
	quiet.update(1, 2, "x")
	quiet.message("y")
	quiet.println("a log line")
	quiet.finish()
	if buf.String() != "a log line\n" {
		t.Fatalf("never: %q; want only the log line", buf.String())
	}
	// Not a terminal, auto: a plain line per step, none repeated within
	// the heartbeat, log lines as they come, no carriage return.
	buf.Reset()
	plain, _ := newProgress("auto", &buf)
	plain.message("measuring one DRAM miss")
	plain.update(0, 3, "map insert-lookup rep 1/1")
	plain.update(0, 3, "map insert-lookup rep 1/1")
	plain.update(1, 3, "otter insert-lookup rep 1/1")
	plain.println("a log line")
	plain.finish()
	want := "cachebench: measuring one DRAM miss\n" +
		"cachebench: [0% 0/3 0s] map insert-lookup rep 1/1\n" +
		"cachebench: [33% 1/3 0s] otter insert-lookup rep 1/1\n" +
		"a log line\n"
	if buf.String() != want {
		t.Fatalf("plain lines:\n%q\nwant\n%q", buf.String(), want)
	}

	var none *progress
	none.update(1, 2, "x")
	none.println("x")
	none.finish()
}

// A plain-line display repeats a long step every plainHeartbeat, and
// stops when finished.
func TestProgressHeartbeat(t *testing.T) {
	old := plainHeartbeat
	plainHeartbeat = 50 * time.Millisecond
	defer func() { plainHeartbeat = old }()
	var buf syncBuffer
	p, _ := newProgress("auto", &buf)
	p.update(0, 2, "arc insert-lookup rep 1/5")
	time.Sleep(200 * time.Millisecond)
	p.finish()
	n := strings.Count(buf.String(), "still: arc insert-lookup rep 1/5\n")
	if n < 1 {
		t.Fatalf("no heartbeat:\n%s", buf.String())
	}
	time.Sleep(150 * time.Millisecond)
	if m := strings.Count(buf.String(), "still:"); m != n {
		t.Fatalf("heartbeat after finish: %d lines, then %d", n, m)
	}
}

// syncBuffer is a bytes.Buffer safe for the heartbeat goroutine and the
// test reading it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
