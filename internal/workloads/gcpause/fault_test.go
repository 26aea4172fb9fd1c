package gcpause

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// goSegvReport is the shape of what the Go runtime prints when a process
// gets SIGSEGV from outside (kill -SEGV): a header, the goroutines, and a
// register dump at the end.
const goSegvReport = `cachebench-progress: fill 100 1000
SIGSEGV: segmentation violation
PC=0x47c3a1 m=0 sigcode=0

goroutine 0 gp=0x6d4fa0 m=0 mp=0x6d5a60 [idle]:
runtime.futex(0x6d5ba0, 0x80, 0x0, 0x0, 0x0, 0x0)
	/usr/local/go/src/runtime/sys_linux_amd64.s:557 +0x21
runtime.futexsleep(0x7ffd5c2b8b90?, 0x42e6b6?, 0x0?)
rax    0xca
rbx    0x0
rcx    0x47c3a3
rdx    0x0
rdi    0x6d5ba0
rsi    0x80
rbp    0x7ffd5c2b8b78
rsp    0x7ffd5c2b8b30
`

func exitOf(t *testing.T, script string) error {
	t.Helper()
	err := exec.Command("sh", "-c", script).Run()
	if err == nil {
		t.Fatalf("%q succeeded", script)
	}
	return err
}

// TestDescribeCrash: a child that the Go runtime reports as killed by a
// signal is described as "child killed by SIGSEGV" with the report's
// first lines, not with the last lines of its register dump.
func TestDescribeCrash(t *testing.T) {
	log := readChildStderr(strings.NewReader(goSegvReport), childEvents{
		progress: func(string, int64, int64) {}, log: func(string) {},
	})
	msg := describeExit(exitOf(t, "exit 2"), log).Error()
	for _, want := range []string{"child killed by SIGSEGV", "segmentation violation", "PC=0x47c3a1", "goroutine 0"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "rax") || strings.Contains(msg, "rsp") {
		t.Errorf("%q quotes the register dump", msg)
	}
	// A signal that ended the process itself.
	msg = describeExit(exitOf(t, "kill -SEGV $$"), childLog{tail: []string{"last line"}}).Error()
	if !strings.HasPrefix(msg, "child killed by SIGSEGV") || !strings.Contains(msg, "last line") {
		t.Errorf("signalled: %q", msg)
	}
	// A plain failure keeps the tail.
	msg = describeExit(exitOf(t, "exit 3"), childLog{tail: []string{"out of luck"}}).Error()
	if msg != "child exited with status 3: out of luck" {
		t.Errorf("plain: %q", msg)
	}
}

// TestKeyGenCostBounded: the key generation estimate writes at most
// keyGenBytes whatever the value size, and stops on a cancelled context.
func TestKeyGenCostBounded(t *testing.T) {
	p := Params{Entries: MaxEntries, ValueSize: MaxValueSize}
	start := time.Now()
	ns, err := keyGenCost(context.Background(), p)
	if err != nil || ns <= 0 {
		t.Fatalf("%v %v", ns, err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v", el)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := keyGenCost(ctx, p); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
