package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/gate"
)

// TestGateRefusesDirtyTree: uncommitted changes to tracked files are not
// what the gate measures (it builds commits), so it refuses them, exit 2,
// unless --allow-dirty.
func TestGateRefusesDirtyTree(t *testing.T) {
	needTools(t, "git")
	repo := newRepo(t)
	commitFiles(t, repo, "main", map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	if err := os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main\n\nfunc main() { for {} }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runGate(t, "--dir", repo, "--base", "none", "./missing")
	if code != exitUsage || !strings.Contains(stderr, "uncommitted changes") || !strings.Contains(stderr, "--allow-dirty") {
		t.Fatalf("dirty tree: exit %d, %q; want exit 2 naming --allow-dirty", code, stderr)
	}
	// With --allow-dirty the gate goes on (to the package, missing here).
	code, _, stderr = runGate(t, "--dir", repo, "--base", "none", "--allow-dirty", "./missing")
	if code != exitUsage || strings.Contains(stderr, "uncommitted") {
		t.Fatalf("--allow-dirty: exit %d, %q; want the gate past the dirty check", code, stderr)
	}
}

// TestGateLibraryPackage: a package that is not main is a clear error,
// not "fork/exec ...: permission denied" from running its archive.
func TestGateLibraryPackage(t *testing.T) {
	needTools(t, "git", "go")
	if testing.Short() {
		t.Skip("runs go build")
	}
	repo := newRepo(t)
	commitFiles(t, repo, "lib", map[string]string{
		"go.mod":     "module example.com/lib\n\ngo 1.21\n",
		"lib/lib.go": "package lib\n\nfunc F() int { return 1 }\n",
	})
	code, _, stderr := runGate(t, "--dir", repo, "--base", "none", "--keys", "1000", "./lib")
	if code != exitUsage || !strings.Contains(stderr, "package lib, not a main package") || strings.Contains(stderr, "permission denied") {
		t.Fatalf("library package: exit %d, %q", code, stderr)
	}
}

// TestGateInterruptedBuildCleansUp: an interrupt during the build reaches
// the build's whole process group as SIGINT and is waited for, so the
// build removes its work directory (go build's $TMPDIR/go-build*), where
// killing the child alone left it behind. A fake go stands in for the
// real one: it makes its work directory, and removes it on SIGINT only.
func TestGateInterruptedBuildCleansUp(t *testing.T) {
	needTools(t, "git", "sh", "sleep")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	repo := newRepo(t)
	commitFiles(t, repo, "main", map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	started := filepath.Join(tmp, "started")
	fakeGo := filepath.Join(t.TempDir(), "go")
	script := "#!/bin/sh\nd=$(mktemp -d \"$TMPDIR/go-build-fake.XXXXXX\")\ntrap 'rm -rf \"$d\"; exit 130' INT\n: > " + started + "\nsleep 30\n"
	if err := os.WriteFile(fakeGo, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := gate.Run(ctx, gate.Options{Dir: repo, Package: ".", Base: "none", Go: fakeGo, Count: 4})
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the fake build never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	start := time.Now()
	var err error
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("gate.Run did not return after the interrupt")
	}
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Fatalf("gate.Run: %v after %v, want context.Canceled within a second or two", err, time.Since(start))
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "go-build*"))
	if len(left) > 0 {
		t.Fatalf("the build's work directory was left behind: %v", left)
	}
}
