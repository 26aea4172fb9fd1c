package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// outputCommands are the commands with -o, each with the cheapest
// arguments that write something there. dir holds their inputs.
func outputCommands(t *testing.T, dir string) map[string]func(out string) []string {
	tr, run := smallInputs(t, dir)
	return map[string]func(string) []string{
		"build": func(o string) []string { return []string{"build", "--synthetic", "50", "-o", o, "--progress", "never"} },
		"trace gen": func(o string) []string {
			return []string{"trace", "gen", "--requests", "100", "--keys", "10", "-o", o}
		},
		"run": func(o string) []string {
			return []string{"run", "--adapters", "map", "--keys", "200", "--count", "1", "--no-floor", "--format", "json", "-o", o, "--progress", "never"}
		},
		"hitratio": func(o string) []string {
			return []string{"hitratio", "--trace", tr, "--adapters", "lru", "--capacity", "10", "--format", "json", "-o", o, "--progress", "never"}
		},
		"merge": func(o string) []string { return []string{"merge", run, "-o", o} },
		"gc-pause": func(o string) []string {
			return []string{"gc-pause", "--entries", "2000", "--adapters", "map", "--count", "1", "--verify", "10", "--gc-reads", "10",
				"--gc-read-time", "1s", "--format", "json", "-o", o, "--progress", "never"}
		},
	}
}

// smallInputs writes a small trace (in.oracleGeneral) and a small run's
// result (in.json) into dir, and returns their paths.
func smallInputs(t *testing.T, dir string) (tr, run string) {
	t.Helper()
	tr = filepath.Join(dir, "in.oracleGeneral")
	if err := trace.Generate(context.Background(), trace.GenConfig{Kind: "zipf", Requests: 2000, Keys: 100, Alpha: 1, Seed: 1, SizeMin: 10, SizeMax: 10}, tr); err != nil {
		t.Fatal(err)
	}
	run = filepath.Join(dir, "in.json")
	if code, _, errs := runCLI(t, "run", "--adapters", "map", "--keys", "500", "--count", "2", "--no-floor", "--format", "json", "-o", run, "--progress", "never"); code != 0 {
		t.Fatal(errs)
	}
	return tr, run
}

// TestOutputRuleEveryCommand: every -o follows fileio's rule — a replaced
// file keeps its mode, a read-only one is refused up front (exit 2) and
// left as it was, a symlink's target is written, a FIFO and a character
// device are written in place, a directory is refused — with no temp
// file left.
func TestOutputRuleEveryCommand(t *testing.T) {
	in := t.TempDir()
	for name, args := range outputCommands(t, in) {
		t.Run(strings.ReplaceAll(name, " ", "-"), func(t *testing.T) {
			dir := t.TempDir()
			// An existing 0640 file: replaced, mode kept.
			keep := filepath.Join(dir, "keep.out")
			os.WriteFile(keep, []byte("old"), 0o640)
			if code, _, errs := runCLI(t, args(keep)...); code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if fi, _ := os.Stat(keep); fi.Mode() != 0o640 || fi.Size() <= 3 {
				t.Errorf("replaced file: mode %v, %d bytes", fi.Mode(), fi.Size())
			}
			// A read-only file: refused before any work, untouched.
			ro := filepath.Join(dir, "ro.out")
			os.WriteFile(ro, []byte("old"), 0o444)
			code, _, errs := runCLI(t, args(ro)...)
			if b, _ := os.ReadFile(ro); code != exitUsage || !strings.Contains(errs, "read-only") || string(b) != "old" {
				t.Errorf("read-only: exit %d, %q, contents %q", code, errs, b)
			}
			// A symlink: its target is written, the link stays.
			link := filepath.Join(dir, "link.out")
			os.Symlink("target.out", link)
			if code, _, errs := runCLI(t, args(link)...); code != 0 {
				t.Fatalf("symlink: exit %d: %s", code, errs)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("symlink replaced: %v", err)
			}
			if fi, err := os.Stat(filepath.Join(dir, "target.out")); err != nil || fi.Size() == 0 {
				t.Errorf("symlink target not written: %v", err)
			}
			// A directory: exit 2.
			if code, _, errs := runCLI(t, args(dir)...); code != exitUsage || !strings.Contains(errs, "is a directory") {
				t.Errorf("directory: exit %d, %q", code, errs)
			}
			// A FIFO with a reader: written in place.
			fifo := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			got := make(chan int)
			go func() {
				f, err := os.Open(fifo)
				if err != nil {
					got <- -1
					return
				}
				n, _ := io.Copy(io.Discard, f)
				f.Close()
				got <- int(n)
			}()
			if code, _, errs := runCLI(t, args(fifo)...); code != 0 {
				t.Fatalf("fifo: exit %d: %s", code, errs)
			}
			select {
			case n := <-got:
				if n <= 0 {
					t.Errorf("fifo reader got %d bytes", n)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("fifo reader got nothing")
			}
			if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("fifo replaced: %v", fi.Mode())
			}
			// A character device (root only): written, never replaced.
			if os.Geteuid() == 0 {
				null := filepath.Join(dir, "fakenull")
				if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
					if code, _, errs := runCLI(t, args(null)...); code != 0 {
						t.Fatalf("device: exit %d: %s", code, errs)
					}
					if fi, _ := os.Lstat(null); fi.Mode()&os.ModeCharDevice == 0 {
						t.Errorf("device replaced: %v", fi.Mode())
					}
				}
			}
			noTempFiles(t, dir)
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
}
