// Package netserver starts and stops the cache servers that cachebench's
// network adapters talk to when the user gives no address: memcached and
// redis-server taken from PATH, bound to 127.0.0.1 on a free port, with the
// run's memory budget as the server's own limit.
//
// A server started here belongs to the process that started it and to no
// one else: it runs in a process group of its own (so the terminal's Ctrl-C
// reaches cachebench, which then stops it, rather than killing it in the
// middle of a pass), it is killed by the kernel if cachebench dies
// (Pdeathsig), and Stop signals that process group only. StopAll stops every
// server still running, for a command's interrupt path.
//
// A port is found by binding port 0 on loopback and releasing it; another
// process may take it before the server binds, so a server that exits
// because its port is in use is started again on another port.
package netserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrBinaryMissing is returned (wrapped in a *MissingBinaryError) when the
// server binary is not on PATH. Commands map it to exit code 2: the run
// cannot start until the user installs the package.
var ErrBinaryMissing = errors.New("server binary not found on PATH")

// MissingBinaryError names the binary and the Debian package providing it.
type MissingBinaryError struct {
	Binary  string
	Package string
}

func (e *MissingBinaryError) Error() string {
	return fmt.Sprintf("%s not found on PATH: install the Debian package %s (apt-get install -y %s) or give the address of a running server",
		e.Binary, e.Package, e.Package)
}

// Is makes errors.Is(err, ErrBinaryMissing) true.
func (e *MissingBinaryError) Is(target error) bool { return target == ErrBinaryMissing }

// Debian packages providing the binaries this package runs.
var debianPackage = map[string]string{
	"memcached":    "memcached",
	"redis-server": "redis-server",
	"redis-cli":    "redis-tools",
}

// LookBinary finds name on PATH or returns a *MissingBinaryError.
func LookBinary(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		pkg := debianPackage[name]
		if pkg == "" {
			pkg = name
		}
		return "", &MissingBinaryError{Binary: name, Package: pkg}
	}
	return p, nil
}

// Server is one server process started by this package.
type Server struct {
	// Kind is "memcached" or "redis".
	Kind string
	// Addr is host:port on loopback.
	Addr string
	// LimitBytes is the memory limit given to the server.
	LimitBytes int64
	// Args are the command-line arguments it was started with.
	Args []string

	cmd    *exec.Cmd
	dir    string // scratch directory (redis cluster config), removed at Stop
	output *lockedBuffer
	exited chan struct{}
	waitMu sync.Mutex
	waitEr error

	stopOnce sync.Once
	stopErr  error
}

// PID returns the server's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Alive reports whether the process is still running.
func (s *Server) Alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// RSS returns the server's resident set size in bytes, from VmRSS in
// /proc/PID/status (Linux only).
func (s *Server) RSS() (int64, error) { return ProcessRSS(s.PID()) }

// ProcessRSS reads VmRSS of pid from /proc/PID/status.
func ProcessRSS(pid int) (int64, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("%s: unexpected VmRSS line %q", path, line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: VmRSS %q: %w", path, f[0], err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("%s: no VmRSS line (process gone?)", path)
}

// Kill sends SIGKILL to the server's process group without waiting; tests
// use it to simulate a server that dies in the middle of a run.
func (s *Server) Kill() error {
	return syscall.Kill(-s.PID(), syscall.SIGKILL)
}

// Stop ends the server (SIGTERM to its process group, SIGKILL after two
// seconds; memcached gets SIGKILL at once), waits for it and removes its scratch directory. It is safe to
// call more than once and from several goroutines.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		unregister(s)
		if s.Alive() {
			// memcached holds nothing worth a clean exit and spends a
			// full second on SIGTERM; redis (persistence off) exits at once.
			sig := syscall.SIGTERM
			if s.Kind == "memcached" {
				sig = syscall.SIGKILL
			}
			_ = syscall.Kill(-s.PID(), sig)
			select {
			case <-s.exited:
			case <-time.After(2 * time.Second):
				_ = syscall.Kill(-s.PID(), syscall.SIGKILL)
				<-s.exited
			}
		}
		if s.dir != "" {
			if err := os.RemoveAll(s.dir); err != nil {
				s.stopErr = fmt.Errorf("remove %s scratch directory %s: %w", s.Kind, s.dir, err)
			}
		}
	})
	return s.stopErr
}

// Output returns what the server wrote to stdout and stderr so far (for
// error messages).
func (s *Server) Output() string { return s.output.String() }

// live holds every server not yet stopped, for StopAll.
var (
	liveMu sync.Mutex
	live   = map[*Server]struct{}{}
)

func register(s *Server) {
	liveMu.Lock()
	live[s] = struct{}{}
	liveMu.Unlock()
}

func unregister(s *Server) {
	liveMu.Lock()
	delete(live, s)
	liveMu.Unlock()
}

// StopAll stops every server started by this process and not stopped yet.
// Commands call it on interrupt and before exiting.
func StopAll() {
	liveMu.Lock()
	all := make([]*Server, 0, len(live))
	for s := range live {
		all = append(all, s)
	}
	liveMu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() { defer wg.Done(); _ = s.Stop() }()
	}
	wg.Wait()
}

// Running reports how many servers started by this process are running
// (for tests that check nothing is left behind).
func Running() int {
	liveMu.Lock()
	defer liveMu.Unlock()
	return len(live)
}

// lockedBuffer collects a child's output; exec copies into it from its own
// goroutine while error paths read it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 64<<10 { // keep the start; a chatty server must not grow memory
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(b.buf.String())
}

// startAttempts bounds the restarts on a port taken by someone else.
const startAttempts = 5

// startTimeout bounds the wait for a server to answer.
const startTimeout = 10 * time.Second

// launch starts binary with args(port) on free loopback ports until the
// server answers probe, retrying when the port was taken in between.
// clusterBus asks for a port whose +10000 (Redis Cluster's bus) is free too.
func launch(ctx context.Context, kind, binary string, limit int64, dir string, clusterBus bool, args func(port int) []string, probe func(ctx context.Context, addr string) error) (*Server, error) {
	// The scratch directory was made by the caller; every failure below
	// removes it, so a server that never started leaves nothing behind.
	fail := func(err error) (*Server, error) {
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
		return nil, err
	}
	path, err := LookBinary(binary)
	if err != nil {
		return fail(err)
	}
	var lastErr error
	for attempt := 0; attempt < startAttempts; attempt++ {
		port, err := pickPort(clusterBus)
		if err != nil {
			return fail(err)
		}
		s := &Server{
			Kind:       kind,
			Addr:       net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
			LimitBytes: limit,
			Args:       args(port),
			dir:        dir,
			output:     &lockedBuffer{},
			exited:     make(chan struct{}),
		}
		cmd := exec.Command(path, s.Args...)
		cmd.Stdout, cmd.Stderr = s.output, s.output
		cmd.Dir = dir
		cmd.SysProcAttr = serverProcAttr()
		if err := cmd.Start(); err != nil {
			return fail(fmt.Errorf("start %s %s: %w", path, strings.Join(s.Args, " "), err))
		}
		s.cmd = cmd
		register(s)
		go func() {
			err := cmd.Wait()
			s.waitMu.Lock()
			s.waitEr = err
			s.waitMu.Unlock()
			close(s.exited)
		}()
		err = waitReady(ctx, s, probe)
		if err == nil {
			return s, nil
		}
		s.dir = "" // the scratch directory is reused by the next attempt
		_ = s.Stop()
		lastErr = err
		out := s.Output()
		if !strings.Contains(out, "in use") && !strings.Contains(out, "bind") {
			break
		}
	}
	return fail(lastErr)
}

// waitReady polls the server until probe succeeds, the process exits, ctx
// ends or startTimeout passes.
func waitReady(ctx context.Context, s *Server, probe func(ctx context.Context, addr string) error) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	var last error
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		if !s.Alive() {
			s.waitMu.Lock()
			werr := s.waitEr
			s.waitMu.Unlock()
			return fmt.Errorf("%s on %s exited at start (%v): %s", s.Kind, s.Addr, werr, s.Output())
		}
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		last = probe(pctx, s.Addr)
		pcancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s on %s did not answer within %v: %w (last probe: %v; output: %s)", s.Kind, s.Addr, startTimeout, ctx.Err(), last, s.Output())
		case <-time.After(delay):
		}
	}
}

// pickPort is freePort; tests replace it to hand out a port in use.
var pickPort = freePort

// freePort returns a loopback port that was free a moment ago. With bus,
// port+10000 (Redis Cluster's bus port) was free too.
func freePort(bus bool) (int, error) {
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("find a free port on 127.0.0.1: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		if !bus {
			_ = l.Close()
			return port, nil
		}
		if port+10000 > 65535 {
			_ = l.Close()
			continue
		}
		l2, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000))
		_ = l.Close()
		if err != nil {
			continue
		}
		_ = l2.Close()
		return port, nil
	}
	return 0, errors.New("no loopback port with a free cluster bus port (+10000) found in 50 tries")
}

// roundTrip sends one command line and returns the first reply line, and
// for a Redis bulk reply ($n) the bulk text.
func roundTrip(ctx context.Context, addr, cmd string) (string, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	if _, err := c.Write([]byte(cmd + "\r\n")); err != nil {
		return "", fmt.Errorf("write %q to %s: %w", cmd, addr, err)
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("read reply to %q from %s: %w", cmd, addr, err)
	}
	line = strings.TrimRight(line, "\r\n")
	if n, ok := strings.CutPrefix(line, "$"); ok {
		size, err := strconv.Atoi(n)
		if err != nil || size < 0 || size > 1<<20 {
			return "", fmt.Errorf("bad bulk length %q from %s", line, addr)
		}
		buf := make([]byte, size+2)
		if _, err := readFull(r, buf); err != nil {
			return "", fmt.Errorf("read bulk reply to %q from %s: %w", cmd, addr, err)
		}
		return string(buf[:size]), nil
	}
	return line, nil
}

func readFull(r *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// StopServers stops every server of list, returning the first error.
func StopServers(list []*Server) error {
	var first error
	for _, s := range list {
		if err := s.Stop(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
