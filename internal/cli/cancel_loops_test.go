package cli

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/ctxtest"
	"github.com/klauspost/compress/zstd"
)

// inspect --verify and --stats stop at an interrupt in their passes over
// the file: exit 130 and no report, which would look complete (or, cut
// short, corrupt). They ran to the end whatever Ctrl-C said.
func TestInspectVerifyInterrupted(t *testing.T) {
	store := filepath.Join(t.TempDir(), "v.cache")
	if code, _, errs := storeCLI(t, "build", "--synthetic", "50000", "-o", store); code != 0 {
		t.Fatal(errs)
	}
	for _, flag := range []string{"--verify", "--stats"} {
		// Count the looks of a run that is not interrupted, then cancel
		// at each of them in turn: every one must stop the command.
		all := ctxtest.New(math.MaxInt64)
		if code := Execute(all, []string{"inspect", flag, store}, new(bytes.Buffer), new(bytes.Buffer)); code != 0 {
			t.Fatalf("%s: exit %d", flag, code)
		}
		looks := all.Looks()
		if looks < 4 {
			t.Fatalf("%s looked at its context %d times: its passes do not", flag, looks)
		}
		for n := range looks {
			var out, errb bytes.Buffer
			code := Execute(ctxtest.New(n), []string{"inspect", flag, store}, &out, &errb)
			if code != exitInterrupted || out.Len() != 0 {
				t.Errorf("%s, cancelled at look %d of %d: exit %d, stdout %d bytes, stderr %q; want 130 and no report", flag, n, looks, code, out.Len(), errb.String())
			}
		}
	}
	// Not interrupted, it verifies.
	if code, _, errs := storeCLI(t, "inspect", "--verify", store); code != 0 {
		t.Fatalf("verify: %d %s", code, errs)
	}
}

// trace stats on a long trace stops within a second of the interrupt,
// exit 130, nothing written. It read to the end of the trace (21 s on a
// large one) after three SIGINTs and a SIGTERM.
func TestTraceStatsInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a trace for a few hundred milliseconds")
	}
	// 20M requests of text, zstd-compressed to a few hundred KB: seconds
	// of work, cancelled after 200 ms.
	path := filepath.Join(t.TempDir(), "long.txt.zst")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	var block bytes.Buffer
	for i := range 1000 {
		block.WriteString("k" + strconv.Itoa(i) + "\n")
	}
	for range 20_000 {
		if _, err := zw.Write(block.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(t.TempDir(), "stats.json")
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	time.AfterFunc(200*time.Millisecond, func() { cancelled = time.Now(); cancel() })
	var stdout, stderr bytes.Buffer
	code := Execute(ctx, []string{"trace", "stats", "--format", "json", "-o", out, path}, &stdout, &stderr)
	took := time.Since(cancelled)
	if code != exitInterrupted {
		t.Fatalf("exit %d (%s), want 130", code, stderr.String())
	}
	if took > time.Second {
		t.Errorf("stopped %v after the interrupt, want within a second", took)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o written after the interrupt: %v", err)
	}
}

// run's DRAM-miss measurement chases a region of hundreds of MiB for
// seconds without a context: Ctrl-C during it took up to 3 s to end run.
// measureMachine returns at once when the context ends.
func TestMeasureMachineInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the DRAM-miss measurement, which runs on for seconds")
	}
	prog, err := newProgress("never", new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	if _, err := measureMachine(ctx, prog, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("measureMachine after Ctrl-C: %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("measureMachine returned %v after the start, 50 ms after Ctrl-C; want within a second", took)
	}
}
