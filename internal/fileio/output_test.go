package fileio

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// onlyFiles fails if dir holds anything but the names given (no temp
// file left behind).
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteNewFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := WriteFile(context.Background(), p, writeString("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o644 || readString(t, p) != "new" {
		t.Errorf("mode %v content %q, want -rw-r--r-- and \"new\"", fi.Mode(), readString(t, p))
	}
	onlyFiles(t, dir, "out.json")
}

func TestWriteKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(context.Background(), p, writeString("new")); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode() != 0o640 || readString(t, p) != "new" {
		t.Errorf("mode %v content %q, want -rw-r----- and \"new\"", fi.Mode(), readString(t, p))
	}
	onlyFiles(t, dir, "out.json")
}

// TestReadOnlyRefused: a 0444 file is what a user does to protect a
// result; it is refused before anything is written, also as root.
func TestReadOnlyRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "keep.json")
	if err := os.WriteFile(p, []byte("old"), 0o444); err != nil {
		t.Fatal(err)
	}
	_, err := ResolveOutput(p)
	if !errors.Is(err, ErrReadOnly) || !errors.Is(err, ErrOutput) {
		t.Fatalf("ResolveOutput = %v, want ErrReadOnly and ErrOutput", err)
	}
	if err := WriteFile(context.Background(), p, writeString("new")); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("WriteFile = %v, want ErrReadOnly", err)
	}
	if fi, _ := os.Stat(p); fi.Mode() != 0o444 || readString(t, p) != "old" {
		t.Errorf("mode %v content %q: the file changed", fi.Mode(), readString(t, p))
	}
}

func TestWriteFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	os.WriteFile(p, []byte("old"), 0o644)
	boom := errors.New("boom")
	err := WriteFile(context.Background(), p, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if readString(t, p) != "old" {
		t.Error("old contents lost")
	}
	onlyFiles(t, dir, "out.json")
}

func TestSymlinkTargetWritten(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	os.WriteFile(real, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	tg, err := ResolveOutput(link)
	if err != nil || tg.File != real {
		t.Fatalf("ResolveOutput = %+v, %v; want File %s", tg, err, real)
	}
	if err := WriteFile(context.Background(), link, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if fi, _ := os.Stat(real); fi.Mode() != 0o600 || readString(t, real) != "new" {
		t.Errorf("target: mode %v content %q", fi.Mode(), readString(t, real))
	}
	onlyFiles(t, dir, "link.json", "real.json")
}

func TestDanglingSymlinkCreatesTarget(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link.json")
	os.Symlink(filepath.Join(dir, "made.json"), link)
	if err := WriteFile(context.Background(), link, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if readString(t, filepath.Join(dir, "made.json")) != "new" {
		t.Error("target not written")
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}
}

func TestRefusedOutputs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	sock := filepath.Join(dir, "sock")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
	}
	for name, p := range map[string]string{
		"directory":        dir,
		"under a file":     filepath.Join(file, "x.json"),
		"missing dir":      filepath.Join(dir, "nope", "x.json"),
		"symlink loop":     loop,
		"socket":           sock,
		"empty":            "",
		"dir through link": mkLink(t, dir, "dirlink", dir),
	} {
		_, err := ResolveOutput(p)
		if !errors.Is(err, ErrOutput) {
			t.Errorf("%s (%s): err = %v, want ErrOutput", name, p, err)
		}
	}
}

func mkLink(t *testing.T, dir, name, to string) string {
	p := filepath.Join(dir, name)
	if err := os.Symlink(to, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCharDeviceWrittenInPlace: a device is written, never replaced
// (root only: mknod).
func TestCharDeviceWrittenInPlace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "fakenull")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod: %v", err)
	}
	if err := WriteFile(context.Background(), p, writeString("anything")); err != nil {
		t.Fatal(err)
	}
	o, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(o, "through a temp file")
	if err := o.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Lstat(p)
	if fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("%s is now %v", p, fi.Mode())
	}
	onlyFiles(t, dir, "fakenull")
}

func TestFIFOWithReader(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, viaTemp := range []bool{false, true} {
		got := make(chan string)
		go func() {
			b, _ := os.ReadFile(p)
			got <- string(b)
		}()
		var err error
		if viaTemp {
			var o *Output
			if o, err = Create(p); err == nil {
				io.WriteString(o, "hello")
				err = o.Commit(context.Background())
			}
		} else {
			err = WriteFile(context.Background(), p, writeString("hello"))
		}
		if err != nil {
			t.Fatal(err)
		}
		if s := <-got; s != "hello" {
			t.Errorf("reader got %q", s)
		}
	}
	if fi, _ := os.Lstat(p); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is now %v", p, fi.Mode())
	}
	onlyFiles(t, dir, "pipe")
}

// TestFIFOWithoutReaderCancels: a FIFO nobody reads does not hold the
// process past Ctrl-C.
func TestFIFOWithoutReaderCancels(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := WriteFile(ctx, p, writeString("x"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("took %v", el)
	}
	// Already cancelled: no wait at all.
	start = time.Now()
	if err := WriteFile(ctx, p, writeString("x")); err == nil || time.Since(start) > time.Second {
		t.Errorf("cancelled write: %v after %v", err, time.Since(start))
	}
}

func TestOpenInputFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// No writer: the open gives up when ctx does.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	start := time.Now()
	_, err := OpenInput(ctx, p)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("open without writer: %v after %v", err, time.Since(start))
	}
	// A writer that opens and then stalls: the read gives up.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	w := make(chan *os.File)
	go func() {
		f, _ := os.OpenFile(p, os.O_WRONLY, 0)
		f.WriteString("abc")
		w <- f
	}()
	f, err := OpenInput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wf := <-w
	defer wf.Close()
	buf := make([]byte, 3)
	if _, err := io.ReadFull(f, buf); err != nil || string(buf) != "abc" {
		t.Fatalf("read %q, %v", buf, err)
	}
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	if _, err := f.Read(buf); err == nil || time.Since(start) > 2*time.Second {
		t.Errorf("stalled read: %v after %v", err, time.Since(start))
	}
}

func TestOpenInputRefusesTypes(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "sock")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
	}
	for _, p := range []string{dir, sock, "/dev/zero"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if _, err := OpenInput(context.Background(), p); !errors.Is(err, ErrInput) {
			t.Errorf("OpenInput(%s) = %v, want ErrInput", p, err)
		}
		if err := CheckRegular(p); !errors.Is(err, ErrInput) {
			t.Errorf("CheckRegular(%s) = %v, want ErrInput", p, err)
		}
	}
	reg := filepath.Join(dir, "f")
	os.WriteFile(reg, []byte("x"), 0o644)
	f, err := OpenInput(context.Background(), reg)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestKilledWriterLeavesNothing: a process killed by SIGKILL while it
// writes an output leaves no temp file (O_TMPFILE on Linux).
func TestKilledWriterLeavesNothing(t *testing.T) {
	if dir := os.Getenv("FILEIO_KILL_DIR"); dir != "" {
		o, err := Create(filepath.Join(dir, "out.bin"))
		if err != nil {
			os.Exit(3)
		}
		o.Write(make([]byte, 1<<20))
		os.Stdout.WriteString("ready\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "out.bin"), []byte("old"), 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLeavesNothing$")
	cmd.Env = append(os.Environ(), "FILEIO_KILL_DIR="+dir)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	io.ReadFull(out, buf)
	cmd.Process.Kill()
	cmd.Wait()
	if string(buf) != "ready\n" {
		t.Fatalf("child said %q", buf)
	}
	if runtimeHasTmpfile(dir) {
		onlyFiles(t, dir, "out.bin")
	}
	if readString(t, filepath.Join(dir, "out.bin")) != "old" {
		t.Error("old contents lost")
	}
}

// runtimeHasTmpfile reports whether CreateTemp makes unnamed files in dir.
func runtimeHasTmpfile(dir string) bool {
	f, name, err := CreateTemp(dir, "probe")
	if err != nil {
		return false
	}
	f.Close()
	if name != "" {
		os.Remove(name)
	}
	return name == ""
}

// TestStaleTempsRemoved: a named temp file of a process that is gone is
// removed by the next write of the same destination; one of a live
// process, of another destination or without a pid stays.
func TestStaleTempsRemoved(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no `true` to get a dead pid from")
	}
	deadPid := strconv.Itoa(dead.Process.Pid)
	files := map[string]bool{ // name → should survive
		".s.cache.tmp-" + deadPid + "-123":                  false,
		".s.cache.tmp-" + strconv.Itoa(os.Getppid()) + "-1": true,
		".other.cache.tmp-" + deadPid + "-1":                true,
		".s.cache.tmp-abc":                                  true,
	}
	for name := range files {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, name, err := createNamedTemp(dir, "s.cache")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.Remove(name)
	for n, keep := range files {
		_, err := os.Stat(filepath.Join(dir, n))
		if (err == nil) != keep {
			t.Errorf("%s: exists %v, want %v", n, err == nil, keep)
		}
	}
}

// TestWriteErrNamesThePathOnce: a write to a full device reports the
// device once, whether the error comes from the file (an *fs.PathError
// naming it) or from elsewhere in the writer.
func TestWriteErrNamesThePathOnce(t *testing.T) {
	pe := &fs.PathError{Op: "write", Path: "/x/out.json", Err: syscall.ENOSPC}
	if err := WriteErr("/x/out.json", pe); err != pe {
		t.Errorf("WriteErr of the file's own error = %v, want it unchanged", err)
	}
	other := errors.New("encoder broke")
	if err := WriteErr("/x/out.json", other); !errors.Is(err, other) || err.Error() != "write /x/out.json: encoder broke" {
		t.Errorf("WriteErr of another error = %q", err)
	}
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	err := WriteFile(context.Background(), "/dev/full", func(w io.Writer) error {
		_, err := w.Write(make([]byte, 1<<16)) // past bufio's buffer: the device's error
		return err
	})
	if !errors.Is(err, syscall.ENOSPC) || strings.Count(err.Error(), "/dev/full") != 1 || strings.Contains(err.Error(), "\n") {
		t.Errorf("WriteFile(/dev/full) = %q, want ENOSPC naming the device once, on one line", err)
	}
}
