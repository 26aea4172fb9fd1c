package cli

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBuildDestination: an unusable -o is found before anything is read
// and exits 2, leaving nothing behind.
func TestBuildDestination(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "plain", "x")
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// A directory as input would be a read error; a missing input must
	// not be reached: the destination check comes first.
	for name, c := range map[string]struct{ out, why string }{
		"missing dir":  {filepath.Join(dir, "no", "such", "x.cache"), "no such file or directory"},
		"under a file": {filepath.Join(file, "x.cache"), "not a directory"},
		"a directory":  {sub, "is a directory"},
	} {
		code, _, stderr := storeCLI(t, "build", "--synthetic", "5", "-o", c.out)
		if code != 2 || !strings.Contains(stderr, c.why) {
			t.Errorf("%s: exit %d, %q; want exit 2 saying %q", name, code, stderr, c.why)
		}
	}
	// A read-only directory: TestReadOnlyOutputDirectory, as nobody.
	noTempFiles(t, dir)
}

// TestBuildEmptyInput: an empty input does not replace a good store
// unless --allow-empty says so.
func TestBuildEmptyInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.cache")
	if code, _, errs := storeCLI(t, "build", "--synthetic", "10", "-o", out); code != 0 {
		t.Fatal(errs)
	}
	old, _ := os.ReadFile(out)
	empty := writeFile(t, dir, "empty.tsv", "\n\n")
	code, _, stderr := storeCLI(t, "build", "--input", empty, "-o", out)
	if code != 2 || !strings.Contains(stderr, "no pairs") {
		t.Fatalf("empty input: exit %d, %q", code, stderr)
	}
	if now, _ := os.ReadFile(out); string(now) != string(old) {
		t.Fatal("empty input replaced the store")
	}
	if code, _, stderr := storeCLI(t, "build", "--input", empty, "--allow-empty", "-o", out); code != 0 {
		t.Fatalf("--allow-empty: exit %d, %q", code, stderr)
	}
	if code, stdout, _ := storeCLI(t, "inspect", "--verify", out); code != 0 || !strings.Contains(stdout, "entries          0") {
		t.Fatalf("empty store: exit %d\n%s", code, stdout)
	}
	noTempFiles(t, dir)
}

// TestBuildJSONLBinary: invalid UTF-8 is refused with its line; binary
// data goes in through key_b64 / value_b64.
func TestBuildJSONLBinary(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "b.cache")
	bad := writeFile(t, dir, "bad.jsonl", "{\"key\":\"a\",\"value\":\"1\"}\n{\"key\":\"b\xff\",\"value\":\"2\"}\n")
	code, _, stderr := storeCLI(t, "build", "--input", bad, "-o", out)
	if code != 2 || !strings.Contains(stderr, "bad.jsonl:2: invalid UTF-8") {
		t.Errorf("invalid UTF-8: exit %d, %q", code, stderr)
	}
	both := writeFile(t, dir, "both.jsonl", "{\"key\":\"a\",\"key_b64\":\"YQ==\",\"value\":\"1\"}\n")
	if code, _, stderr := storeCLI(t, "build", "--input", both, "-o", out); code != 2 || !strings.Contains(stderr, "both.jsonl:1: both key and key_b64") {
		t.Errorf("key and key_b64: exit %d, %q", code, stderr)
	}
	// "\xffk" and "v\x00\xfe" in base64.
	good := writeFile(t, dir, "good.jsonl", "{\"key_b64\":\"/2s=\",\"value_b64\":\"dgD+\"}\n{\"key\":\"t\",\"value_b64\":\"\"}\n")
	if code, _, stderr := storeCLI(t, "build", "--input", good, "-o", out); code != 0 {
		t.Fatalf("base64: exit %d, %q", code, stderr)
	}
	code, stdout, _ := storeCLI(t, "inspect", "--get", "\xffk", "--get", "t", out)
	if code != 0 || !strings.Contains(stdout, `get "\xffk" = "v\x00\xfe"`) || !strings.Contains(stdout, `get "t" = ""`) {
		t.Fatalf("base64 pairs read back: exit %d\n%s", code, stdout)
	}
}

// buildBinary compiles the real cachebench command once per test run.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the cachebench binary")
	}
	bin := filepath.Join(t.TempDir(), "cachebench")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/cachebench")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startBuild starts `cachebench build` of n synthetic keys over out and
// returns once it has added pairs (its progress bar drew).
func startBuild(t *testing.T, bin, out string, n string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "build", "--synthetic", n, "-o", out, "--progress", "always")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stderr)
	if _, err := r.ReadByte(); err != nil {
		t.Fatalf("build wrote no progress: %v", err)
	}
	go func() { _, _ = r.WriteTo(discard{}) }()
	return cmd
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestBuildKilled kills a real build subprocess with SIGKILL mid-build
// and with SIGTERM at several moments: the old file stays intact, nothing
// else remains in the directory, and SIGTERM exits 130 (interrupted)
// unless the build had already renamed the new file into place.
func TestBuildKilled(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "k.cache")
	if code, _, errs := storeCLI(t, "build", "--synthetic", "50", "-o", out); code != 0 {
		t.Fatal(errs)
	}
	old, _ := os.ReadFile(out)
	onlyOld := func(what string) {
		t.Helper()
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 || ents[0].Name() != "k.cache" {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Fatalf("%s: directory holds %v", what, names)
		}
		if now, _ := os.ReadFile(out); string(now) != string(old) {
			t.Fatalf("%s: the old file changed", what)
		}
	}
	cmd := startBuild(t, bin, out, "3000000")
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	onlyOld("SIGKILL")
	for _, delay := range []time.Duration{0, 50 * time.Millisecond, 200 * time.Millisecond} {
		cmd := startBuild(t, bin, out, "200000")
		time.Sleep(delay)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		if cmd.ProcessState.ExitCode() == 0 {
			// Finished before the signal: the new file is complete.
			if code, _, _ := storeCLI(t, "inspect", "--verify", out); code != 0 {
				t.Fatalf("SIGTERM after %v: exit 0 but the file does not verify", delay)
			}
			return // the old file is gone; later rounds would test nothing new
		}
		if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
			t.Fatalf("SIGTERM after %v: exit %d (%v), want %d", delay, code, err, exitInterrupted)
		}
		t.Logf("SIGTERM after %v: exit %d, old file intact, nothing left", delay, exitInterrupted)
		onlyOld("SIGTERM after " + delay.String())
	}
}
