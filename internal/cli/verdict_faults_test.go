package cli

import (
	"strings"
	"testing"
)

// TestRunFlaggedAdapterFails: a server that answers every get with
// another key's value flags the row, and then run exits 1 and no
// footnote says every lookup returned the value written.
func TestRunFlaggedAdapterFails(t *testing.T) {
	srv := startFakeMemcached(t, "wrong")
	code, stdout, stderr := runCLI(t, "run", "--adapters", "memcached", "--memcached-addr", srv.Addr, "--flush-servers",
		"--keys", "300", "--count", "1", "--no-floor", "--progress", "never", "--format", "text")
	if code != exitFailure {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFailure, stdout, stderr)
	}
	if !strings.Contains(stdout, "wrong values") || !strings.Contains(stderr, "flagged") {
		t.Fatalf("no flag shown or reported:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if strings.Contains(stdout, "returned the value written") {
		t.Fatalf("a footnote contradicts the flag:\n%s", stdout)
	}
}
