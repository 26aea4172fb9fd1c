package gate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cachebench/cachebench/internal/procgroup"
)

// git runs git in dir and returns its trimmed output; the error holds
// git's own message.
func (g *gater) git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, g.o.Git, append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// resolve turns a revision into a commit hash.
func (g *gater) resolve(ctx context.Context, rev string) (string, error) {
	sha, err := g.git(ctx, g.top, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil || sha == "" {
		hint := ""
		if shallow, _ := g.git(ctx, g.top, "rev-parse", "--is-shallow-repository"); shallow == "true" {
			hint = " (the clone is shallow: fetch the history, e.g. actions/checkout with fetch-depth: 0)"
		}
		return "", inputErr("revision %q does not exist in %s%s", rev, g.top, hint)
	}
	return sha, nil
}

// build checks rev out into a worktree of its own and builds the package
// there; it returns the binary's path. The worktree is removed again. The
// binary is named after the commit and the package, so a binary already
// in the work directory (Options.Work kept from an earlier gate, or the
// base and new revisions being one commit) is used again.
func (g *gater) build(ctx context.Context, name, rev string) (string, error) {
	bin := filepath.Join(g.work, "bin", short(rev)+"-"+sanitize(filepath.Join(g.rel, g.o.Package)))
	if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() {
		fmt.Fprintf(g.log, "gate: %s at %s (%s) is built already: %s\n", g.o.Package, short(rev), name, bin)
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", fmt.Errorf("gate: %w", err)
	}
	tree := filepath.Join(g.work, "src-"+name)
	fmt.Fprintf(g.log, "gate: building %s at %s (%s)\n", g.o.Package, short(rev), name)
	if _, err := g.git(ctx, g.top, "worktree", "add", "--detach", "--force", tree, rev); err != nil {
		return "", inputErr("check out %s revision %s: %v", name, short(rev), err)
	}
	defer func() {
		if _, err := g.git(context.WithoutCancel(ctx), g.top, "worktree", "remove", "--force", tree); err != nil {
			os.RemoveAll(tree)
			g.git(context.WithoutCancel(ctx), g.top, "worktree", "prune")
		}
	}()
	// -trimpath keeps the worktree's path out of the build, and so out
	// of the build cache's keys: without it every package of the module
	// is compiled again for each new worktree path, with it the base and
	// the new revision share whatever did not change. -buildvcs=false
	// leaves the commit out of the binary, so that two revisions whose
	// change does not reach the program (results, docs) build the same
	// bytes, which the gate then does not time (sameBinary).
	cmd := interruptible(ctx, g.o.Go, "build", "-trimpath", "-buildvcs=false", "-o", bin, g.o.Package)
	cmd.Dir = filepath.Join(tree, g.rel)
	if st, err := os.Stat(cmd.Dir); err != nil || !st.IsDir() {
		return "", inputErr("%s revision %s has no directory %s", name, short(rev), filepath.ToSlash(g.rel))
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		msg := tail(out, 20)
		if strings.TrimSpace(msg) == "" {
			msg = err.Error()
		}
		return "", inputErr("%s revision %s: %s does not build (go build in %s):\n%s",
			name, short(rev), g.o.Package, filepath.ToSlash(g.rel), msg)
	}
	// go build -o of a package that is not main writes its archive, which
	// the suite would then fail to execute ("permission denied").
	if st, err := os.Stat(bin); err != nil || st.Mode()&0o111 == 0 {
		os.Remove(bin)
		what := "not a main package"
		list := exec.CommandContext(ctx, g.o.Go, "list", "-f", "{{.Name}}", g.o.Package)
		list.Dir = cmd.Dir
		if n, err := list.Output(); err == nil {
			what = fmt.Sprintf("package %s, not a main package", strings.TrimSpace(string(n)))
		}
		return "", inputErr("%s is %s: the gate builds and runs a program (the main package calling cachebench.Main, such as ./cmd/cachebench)",
			g.o.Package, what)
	}
	return bin, nil
}

// interruptGrace is how long a child of the gate (go build, a suite
// process) has to exit after the interrupt before it is killed.
const interruptGrace = 10 * time.Second

// interruptible is exec.CommandContext whose cancellation interrupts the
// child's whole process group (SIGINT, as Ctrl-C at a terminal does) and
// waits for it, instead of killing the child alone: go build then stops
// its compilers and removes its $TMPDIR/go-build* work directory, and a
// suite process discards its partial result, where SIGKILL left both
// behind. A child still running interruptGrace later is killed with its
// group.
func interruptible(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	procgroup.Isolate(cmd)
	cmd.Cancel = func() error { return procgroup.Interrupt(cmd.Process) }
	cmd.WaitDelay = interruptGrace
	return cmd
}

// sameBinary reports whether the files at a and b hold the same bytes.
func sameBinary(a, b string) (bool, error) {
	x, err := os.ReadFile(a)
	if err != nil {
		return false, fmt.Errorf("gate: %w", err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		return false, fmt.Errorf("gate: %w", err)
	}
	return bytes.Equal(x, y), nil
}
