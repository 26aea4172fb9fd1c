package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
)

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
}

// gitRun runs git in dir with a fixed identity.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=gate test", "-c", "user.email=gate@test",
		"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commitFiles writes files (path → content) into the repository at dir
// and commits them; it returns the commit's hash.
func commitFiles(t *testing.T, dir, msg string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", msg)
	return gitRun(t, dir, "rev-parse", "HEAD")
}

func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q")
	return dir
}

func runGate(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Execute(context.Background(), append([]string{"gate"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestGateBadInput(t *testing.T) {
	needTools(t, "git", "go")
	repo := newRepo(t)
	commitFiles(t, repo, "a main that does not compile", map[string]string{
		"go.mod":  "module example.com/broken\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() { undefinedFunction() }\n",
	})
	commitFiles(t, repo, "second", map[string]string{"README": "x\n", "sub/main.go": "package main\n\nfunc main() {}\n"})
	notRepo := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no such revision", []string{"--dir", repo, "--base", "no-such-rev", "."}, `revision "no-such-rev" does not exist`},
		{"no such new revision", []string{"--dir", repo, "--new", "HEAD~5", "."}, `revision "HEAD~5" does not exist`},
		{"does not build", []string{"--dir", repo, "."}, "does not build"},
		{"not a repository", []string{"--dir", notRepo, "."}, "is not in a git repository"},
		{"directory missing at the base", []string{"--dir", filepath.Join(repo, "sub"), "--base", "HEAD~1", "."}, "base revision [0-9a-f]+ has no directory sub"},
		{"no package", []string{"--dir", repo}, "accepts 1 arg"},
		{"bad threshold", []string{"--dir", repo, "--threshold", "25", "."}, "ambiguous"},
		{"zero threshold", []string{"--dir", notRepo, "--threshold", "0%", "."}, `--threshold "0%": must be above 0`},
		{"count not a multiple", []string{"--dir", repo, "--count", "5", "--processes", "2", "."}, "multiple of processes"},
		{"reference not in the suite", []string{"--dir", repo, "--adapters", "map", "."}, `must include the reference "fastcache"`},
		{"missing baseline", []string{"--dir", repo, "--baseline", filepath.Join(notRepo, "none.json"), "."}, "baseline"},
		{"baseline glob matching nothing", []string{"--dir", repo, "--baseline", filepath.Join(notRepo, "ci*.json"), "."}, "matches no file"},
		// The suite's flags, as run checks them, before the repository is
		// looked at (notRepo, a missing revision) or anything is built.
		{"unknown adapter", []string{"--dir", notRepo, "--adapters", "nope,fastcache", "--reference", "fastcache", "."}, `^cachebench: gate: --adapters: unknown adapter "nope"`},
		{"unknown workload", []string{"--dir", repo, "--base", "no-such-rev", "--workload", "nope", "."}, `^cachebench: gate: --workload: unknown workload "nope"`},
		{"missing trace", []string{"--dir", notRepo, "--workload", "trace:" + filepath.Join(notRepo, "nope.oracleGeneral"), "."}, `^cachebench: gate: --workload trace:.*nope.oracleGeneral: .*no such file`},
		{"keys beyond run's", []string{"--dir", notRepo, "--keys", "1000000000000000000", "."}, `^cachebench: gate: --keys must be in 1\.\.`},
		{"zero keys", []string{"--dir", notRepo, "--keys", "0", "."}, `^cachebench: gate: --keys must be in 1\.\.`},
		{"count beyond run's", []string{"--dir", notRepo, "--count", "1000000", "."}, `^cachebench: gate: --count must be in 1\.\.1000, got 1000000`},
		{"zero count", []string{"--dir", notRepo, "--count", "0", "."}, `^cachebench: gate cannot decide: --count 0: .* at least 4 per side`},
		{"one count", []string{"--dir", notRepo, "--count", "1", "."}, `^cachebench: gate cannot decide: --count 1: .* at least 4 per side`},
		// 2 or 3 per side could never fail the gate (smallest p 0.33, 0.1).
		{"two count", []string{"--dir", notRepo, "--count", "2", "."}, `^cachebench: gate cannot decide: --count 2: .* at least 4`},
		{"three count", []string{"--dir", notRepo, "--count", "3", "."}, `^cachebench: gate cannot decide: --count 3: .* at least 4`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runGate(t, c.args...)
			if code != exitUsage || !regexp.MustCompile(c.want).MatchString(stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", code, stderr, c.want)
			}
		})
	}
	t.Run("compiler message shown", func(t *testing.T) {
		_, _, stderr := runGate(t, "--dir", repo, ".")
		if !strings.Contains(stderr, "undefined: undefinedFunction") {
			t.Errorf("the build failure does not show the compiler's message:\n%s", stderr)
		}
	})
	t.Run("no git", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		code, _, stderr := runGate(t, "--dir", repo, ".")
		if code != exitUsage || !strings.Contains(stderr, "git is needed") {
			t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and a missing git named", code, stderr)
		}
	})
	// A failed gate leaves no worktree behind in the repository.
	if list := gitRun(t, repo, "worktree", "list"); strings.Count(list, "\n") != 0 {
		t.Errorf("worktrees left behind:\n%s", list)
	}
}

// The end-to-end test's suite names the toy program's adapter. The gate
// checks the suite's adapters against its own binary's before building
// anything (a user's program runs its own gate, which has them); this
// test binary runs the gate in place of the toy program, so it knows the
// name too. It is never constructed here: the suite runs the toy's.
func init() {
	engine.Register(engine.Factory{Name: "toy", Kind: engine.InMemory, TestOnly: true,
		Description: "test: the gate end-to-end test's toy program's adapter",
		New: func(engine.Options) (engine.Adapter, error) {
			return nil, errors.New("toy: only the toy program builds it")
		}})
}

// toyMain is a user's benchmark program: a cache of its own (a map behind
// a lock), registered in init, and main calling the public Main. Its Get
// calls extra(), which the commits of the end-to-end test change.
const toyMain = `package main

import (
	"sync"

	"github.com/cachebench/cachebench"
)

type toy struct {
	mu sync.RWMutex
	m  map[string][]byte
}

func (c *toy) Name() string { return "toy" }

func (c *toy) Set(key, val []byte) error {
	c.mu.Lock()
	c.m[string(key)] = append([]byte{}, val...)
	c.mu.Unlock()
	return nil
}

func (c *toy) Get(dst, key []byte) ([]byte, bool, error) {
	extra()
	c.mu.RLock()
	v, ok := c.m[string(key)]
	c.mu.RUnlock()
	return append(dst, v...), ok, nil
}

func (c *toy) Close() error { return nil }

func (c *toy) Config() map[string]string { return map[string]string{"budget": "none (unbounded)"} }

func init() {
	cachebench.Register(cachebench.Factory{Name: "toy", Kind: cachebench.InMemory, Description: "gate test cache",
		New: func(cachebench.Options) (cachebench.Adapter, error) { return &toy{m: map[string][]byte{}}, nil }})
}

func main() { cachebench.Main() }
`

const (
	extraNone = "package main\n\nfunc extra() {}\n"
	// extraSpin is the injected slowdown: 100 dependent xorshift steps
	// per Get (a step is three dependent one-cycle operations). On the
	// development machine (AMD EPYC, 2 cores shared with other work)
	// that made the toy's lookup ratio to fastcache about 6 times larger
	// (+550%). 50 steps (+120-300%) were caught in quiet runs but not
	// always while the rest of the module's tests ran beside the gate:
	// processes slowed by other work made the two sides' samples overlap.
	extraSpin = `package main

import "sync/atomic"

var sink atomic.Uint64

func extra() {
	x := uint64(88172645463325252)
	for range 100 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	sink.Store(x)
}
`
	// extraAlloc is one heap allocation per Get.
	extraAlloc = `package main

import "sync/atomic"

var sink atomic.Pointer[[16]byte]

func extra() { sink.Store(new([16]byte)) }
`
)

// toyGoMod requires this module through a replace directive and lists
// this module's requirements, so that the toy module builds from this
// module's go.sum without the network.
func toyGoMod(t *testing.T, root string) (gomod, gosum string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go .*$`).FindString(string(b))
	var reqs []string
	for _, blk := range regexp.MustCompile(`(?s)require \((.*?)\)`).FindAllStringSubmatch(string(b), -1) {
		for _, l := range strings.Split(blk[1], "\n") {
			if l = strings.TrimSpace(strings.Split(l, "//")[0]); l != "" {
				reqs = append(reqs, "\t"+l+" // indirect")
			}
		}
	}
	gomod = "module example.com/toy\n\n" + goLine + "\n\nrequire github.com/cachebench/cachebench v0.0.0\n\nrequire (\n" +
		strings.Join(reqs, "\n") + "\n)\n\nreplace github.com/cachebench/cachebench => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	return gomod, string(sum)
}

// TestGateEndToEnd makes a throwaway repository with a user's benchmark
// program and commits that slow its cache's Get by a known amount, change
// nothing, and add an allocation per Get, and runs the gate on each.
func TestGateEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the toy program at four commits and runs the suite: skipped with -short")
	}
	needTools(t, "git", "go")
	root, _ := moduleRoot(t)
	gomod, gosum := toyGoMod(t, root)
	repo := newRepo(t)
	base := commitFiles(t, repo, "toy cache", map[string]string{
		"go.mod": gomod, "go.sum": gosum, "bench/main.go": toyMain, "bench/extra.go": extraNone, "README.md": "toy\n",
	})
	slow := commitFiles(t, repo, "slow Get", map[string]string{"bench/extra.go": extraSpin})
	same := commitFiles(t, repo, "undo the slowdown; a README change", map[string]string{"bench/extra.go": extraNone, "README.md": "toy cache\n"})
	alloc := commitFiles(t, repo, "allocate in Get", map[string]string{"bench/extra.go": extraAlloc})

	work := t.TempDir() // shared, so each commit is built once
	gate := func(name, from, to string, wantCode int, want ...string) {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			code, stdout, stderr := runGate(t, "--dir", repo, "--base", from, "--new", to, "--work", work,
				"--adapters", "toy,fastcache", "--keys", "2000", "--count", "10", "--threshold", "50%", "./bench")
			t.Logf("gate %s..%s: exit %d in %s", from[:8], to[:8], code, time.Since(start).Round(time.Second))
			if code != wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, wantCode, stdout, stderr)
			}
			for _, w := range want {
				// "stderr:" patterns are for the progress lines.
				if p, ok := strings.CutPrefix(w, "stderr:"); ok {
					if !regexp.MustCompile(p).MatchString(stderr) {
						t.Errorf("the progress does not match %q:\n%s", p, stderr)
					}
					continue
				}
				if !regexp.MustCompile(w).MatchString(stdout) {
					t.Errorf("the summary does not match %q:\n%s", w, stdout)
				}
			}
			t.Logf("summary:\n%s", stdout)
		})
	}
	gate("slowdown caught", base, slow, exitFailure,
		`cachebench gate: REGRESSION`, `(?m)^\s*toy\s+insert-lookup\s+lookup\s+1\s+.*REGRESSION`, `Confirmed`,
		`10 repetitions per side over 10 processes, interleaved`, `stderr:(?m)^gate: set 1: 10 of 10 processes per side done$`)
	gate("unchanged passes", base, same, exitOK, `cachebench gate: no regression`,
		`the same binary as new: times not gated`, `10 repetitions of the new binary over 10 processes`,
		`stderr:(?m)^gate: set 1: 10 of 10 processes done$`)
	gate("allocation caught", same, alloc, exitFailure,
		`cachebench gate: REGRESSION`, `(?s)allocs/op, lower is better.*toy\s+insert-lookup\s+lookup\s+1\s+0(?:\.0+)?\s+1(?:\.0+)?\s[^\n]*REGRESSION`)
}
