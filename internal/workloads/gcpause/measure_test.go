package gcpause

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/report"
)

// fakeChildEnv makes the test binary act as a child whose behaviour is
// named by its first argument (the adapter name).
const fakeChildEnv = "GCPAUSE_TEST_FAKE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(fakeChildEnv) == "1" {
		rep, _ := strconv.Atoi(os.Args[2])
		fakeChild(os.Args[1], rep)
		return
	}
	os.Exit(m.Run())
}

func fakeChild(mode string, rep int) {
	switch mode {
	case "ok", "ok2":
		fmt.Fprintln(os.Stderr, ProgressPrefix, "fill 5 10")
		fmt.Fprintln(os.Stderr, "a log line")
		json.NewEncoder(os.Stdout).Encode(ChildOutput{
			GCPause: report.GCPause{Adapter: mode, Repetition: rep, Entries: 10, Verified: 10, ForcedGCSeconds: 0.5},
			Config:  map[string]string{"mode": mode},
		})
		os.Exit(0)
	case "crash":
		fmt.Fprintln(os.Stderr, "cachebench: set key-0000000001: boom")
		os.Exit(3)
	case "oom":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
	case "garbage":
		fmt.Println("hello")
		os.Exit(0)
	case "otheradapter":
		json.NewEncoder(os.Stdout).Encode(ChildOutput{GCPause: report.GCPause{Adapter: "map"}})
		os.Exit(0)
	case "hang":
		fmt.Fprintln(os.Stderr, ProgressPrefix, "fill 1 10")
		time.Sleep(time.Minute)
	}
	os.Exit(99)
}

func fakeConfig(t *testing.T, adapters ...string) Config {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Adapters: adapters,
		Count:    1,
		Child:    ChildConfig{Entries: 10, ValueSize: 16, GOGC: 10},
		Exe:      exe,
		Args:     func(cc ChildConfig) []string { return []string{cc.Adapter, strconv.Itoa(cc.Repetition)} },
		Env:      []string{fakeChildEnv + "=1"},
	}
}

func TestRunRecordsFailedChildrenAndGoesOn(t *testing.T) {
	cfg := fakeConfig(t, "ok", "crash", "oom", "garbage", "otheradapter", "ok2")
	var mu sync.Mutex
	var progress, logs []string
	var done int
	cfg.Observer = Observer{
		Progress: func(a string, rep int, phase string, d, total int64) {
			mu.Lock()
			progress = append(progress, fmt.Sprintf("%s/%d %s %d/%d", a, rep, phase, d, total))
			mu.Unlock()
		},
		Log: func(a string, rep int, line string) {
			mu.Lock()
			logs = append(logs, a+": "+line)
			mu.Unlock()
		},
		Done: func(*ChildOutput) { done++ },
	}
	out, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.GCPause) != 6 || done != 6 {
		t.Fatalf("%d results, %d Done calls; want 6", len(out.GCPause), done)
	}
	wantErr := map[string]string{
		"ok":           "",
		"ok2":          "",
		"crash":        "exited with status 3: cachebench: set key-0000000001: boom",
		"oom":          "killed by signal killed (the kernel's OOM killer",
		"garbage":      "not a result",
		"otheradapter": `measured adapter "map" repetition 0, want "otheradapter"`,
	}
	for _, p := range out.GCPause {
		want := wantErr[p.Adapter]
		if (want == "") != (p.Error == "") || !strings.Contains(p.Error, want) {
			t.Errorf("%s: error %q, want %q", p.Adapter, p.Error, want)
		}
		if p.Error != "" && (p.Entries != 10 || p.ValueSize != 16 || p.GOGC != 10) {
			t.Errorf("%s: failed entry lacks its configuration: %+v", p.Adapter, p)
		}
	}
	if out.GCPause[0].ForcedGCSeconds != 0.5 || out.Configs["ok"]["mode"] != "ok" || out.Configs["crash"] != nil {
		t.Fatalf("result or configs not passed on: %+v %v", out.GCPause[0], out.Configs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) == 0 || progress[0] != "ok/0 fill 5/10" {
		t.Fatalf("progress: %v", progress)
	}
	if len(logs) == 0 || logs[0] != "ok: a log line" {
		t.Fatalf("logs: %v", logs)
	}
}

func TestRunInterleavesRepetitions(t *testing.T) {
	cfg := fakeConfig(t, "ok", "ok2")
	cfg.Count = 2
	out, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range out.GCPause {
		if p.Error != "" {
			t.Fatalf("%s: %s", p.Adapter, p.Error)
		}
		got = append(got, fmt.Sprintf("%s/%d", p.Adapter, p.Repetition))
	}
	if strings.Join(got, " ") != "ok/0 ok2/0 ok/1 ok2/1" {
		t.Fatalf("order %v, want A B A B", got)
	}
}

func TestRunCancelKillsChild(t *testing.T) {
	cfg := fakeConfig(t, "ok", "hang", "ok2")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Observer.Progress = func(a string, _ int, _ string, _, _ int64) {
		if a == "hang" {
			cancel()
		}
	}
	start := time.Now()
	out, err := Run(ctx, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// The hanging child sleeps a minute: returning early means it was killed.
	if el := time.Since(start); el > 20*time.Second {
		t.Fatalf("Run took %v after cancel", el)
	}
	if out == nil || len(out.GCPause) != 1 || out.GCPause[0].Adapter != "ok" {
		t.Fatalf("what was measured before the cancel is lost: %+v", out)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	cfg := fakeConfig(t, "ok")
	cfg.Count = 0
	if _, err := Run(context.Background(), cfg); err == nil {
		t.Fatal("count 0 accepted")
	}
	cfg = fakeConfig(t, "ok")
	cfg.Exe = ""
	if _, err := Run(context.Background(), cfg); err == nil {
		t.Fatal("empty Exe accepted")
	}
}

func TestParseProgress(t *testing.T) {
	if ph, d, tot, ok := parseProgress(" fill 12 100"); !ok || ph != "fill" || d != 12 || tot != 100 {
		t.Fatalf("parseProgress: %q %d %d %v", ph, d, tot, ok)
	}
	for _, s := range []string{"", " fill", " fill x 1", " fill 1 -1", " a b c d"} {
		if _, _, _, ok := parseProgress(s); ok {
			t.Errorf("parseProgress(%q) accepted", s)
		}
	}
}

func TestLimitedBuffer(t *testing.T) {
	b := &limitedBuffer{max: 4}
	b.Write([]byte("ab"))
	b.Write([]byte("cdef"))
	if b.buf.String() != "abcd" || !b.truncated {
		t.Fatalf("buffer %q, truncated %v", b.buf.String(), b.truncated)
	}
}
