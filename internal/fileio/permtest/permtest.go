// Package permtest lets a test check what a user without privileges
// meets: a directory it may not write, a file it may not read. Root reads
// and writes anything, and CI runs as root, so such checks used to be
// skipped exactly where they had to run. Apply runs them there too, in a
// child process as the user nobody.
package permtest

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// nobody is the user and group the child process runs as (nobody and
// nogroup on Debian).
const nobody = 65534

// childEnv marks the child process, which must not be root any more.
const childEnv = "CACHEBENCH_PERMTEST_CHILD"

// Apply reports whether file permissions apply to the calling test's
// process, so that the test may go on and check them: true when it does
// not run as root. Under root it runs the test again in a child process
// as nobody (a copy of the test binary, in a directory any user may read,
// with TMPDIR a directory of nobody's), reports the child's failures as
// the test's own, and returns false: the caller returns at once. The test
// skips if the child cannot be started as nobody. The test must not need
// files of the package's directory: the child runs elsewhere.
func Apply(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return true
	}
	if os.Getenv(childEnv) != "" {
		t.Fatalf("%s is set but this process is still root", childEnv)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("cannot find the test binary to run as nobody: %v", err)
	}
	dir, err := os.MkdirTemp("", "permtest-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin, tmp := filepath.Join(dir, "test.bin"), filepath.Join(dir, "tmp")
	if err := copyExecutable(exe, bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), bin, "-test.run="+runPattern(t.Name()), "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), childEnv+"=1", "TMPDIR="+tmp)
	cmd.SysProcAttr = asUser(nobody, nobody)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run the test as nobody: %v", err)
	}
	err = cmd.Wait()
	switch {
	case err != nil:
		t.Errorf("as nobody (uid %d): %v\n%s", nobody, err, out.Bytes())
	case !strings.Contains(out.String(), "--- PASS: "+t.Name()):
		// A pattern that matched nothing passes too: say so.
		t.Errorf("as nobody: the child did not run %s\n%s", t.Name(), out.Bytes())
	default:
		t.Logf("ran as nobody (uid %d): passed", nobody)
	}
	return false
}

// runPattern is the -test.run pattern of exactly the test named name
// (subtests' levels are separated by slashes).
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

func copyExecutable(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
