package gcpause

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cachebench/cachebench/internal/engine"
	"github.com/cachebench/cachebench/internal/report"
)

// fakeModes are adapters whose child, in this test binary, fakes a
// behaviour instead of measuring (see fakeChild).
var fakeModes = []string{"ok", "ok2", "crash", "oom", "garbage", "otheradapter", "hang"}

func init() {
	for _, m := range fakeModes {
		engine.Register(engine.Factory{Name: m, Kind: engine.InMemory, TestOnly: true, Description: "fake gc-pause child",
			New: func(engine.Options) (engine.Adapter, error) { return nil, errors.New("fake") }})
	}
}

// TestMain serves the children Measure starts: this test binary is
// os.Executable() under go test.
func TestMain(m *testing.M) {
	if cc, isChild, err := readChildConfig(); isChild && err == nil {
		for _, f := range fakeModes {
			if cc.Adapter == f {
				fakeChild(cc.Adapter, cc.Repetition)
			}
		}
	}
	if code, isChild := ServeChild(context.Background(), os.Stdout, os.Stderr); isChild {
		os.Exit(code)
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

func fakeConfig(adapters ...string) Config {
	return Config{
		Params:   Params{Entries: 10, ValueSize: 16, GOGC: 10, GCReads: 10, GCReadTime: time.Second},
		Adapters: adapters,
		Count:    1,
	}
}

func TestMeasureRecordsFailedChildrenAndGoesOn(t *testing.T) {
	cfg := fakeConfig("ok", "crash", "oom", "garbage", "otheradapter", "ok2")
	var mu sync.Mutex
	var progress, logs []string
	cfg.Progress = func(d, total int, desc string) {
		mu.Lock()
		progress = append(progress, fmt.Sprintf("%s %d/%d", desc, d, total))
		mu.Unlock()
	}
	cfg.Log = func(line string) {
		mu.Lock()
		logs = append(logs, line)
		mu.Unlock()
	}
	res, err := Measure(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "4 of 6 child runs failed") {
		t.Fatalf("err = %v, want 4 of 6 failed", err)
	}
	if res == nil || len(res.GCPause) != 6 || res.Kind != report.KindGCPause || res.Interrupted {
		t.Fatalf("result %+v", res)
	}
	wantErr := map[string]string{
		"ok":           "",
		"ok2":          "",
		"crash":        "exited with status 3: cachebench: set key-0000000001: boom",
		"oom":          "killed by SIGKILL (the kernel's OOM killer",
		"garbage":      "not a result",
		"otheradapter": `measured adapter "map" repetition 0, want "otheradapter"`,
	}
	for _, p := range res.GCPause {
		want := wantErr[p.Adapter]
		if (want == "") != (p.Error == "") || !strings.Contains(p.Error, want) {
			t.Errorf("%s: error %q, want %q", p.Adapter, p.Error, want)
		}
		if p.Error != "" && (p.Entries != 10 || p.ValueSize != 16 || p.GOGC != 10) {
			t.Errorf("%s: failed entry lacks its configuration: %+v", p.Adapter, p)
		}
	}
	if res.GCPause[0].ForcedGCSeconds != 0.5 || res.Adapters["ok@gc-pause"]["mode"] != "ok" || res.Adapters["crash@gc-pause"] != nil {
		t.Fatalf("result or configs not passed on: %+v %v", res.GCPause[0], res.Adapters)
	}
	if res.Config["entries"] != "10" || res.Config["forced_gc"] == "" || res.Env.GOGC != "10" {
		t.Fatalf("manifest: %v, GOGC %q", res.Config, res.Env.GOGC)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) == 0 || progress[0] != "ok #1/1 fill 5/10" {
		t.Fatalf("progress: %v", progress)
	}
	joined := strings.Join(logs, "\n")
	for _, want := range []string{"cachebench gc-pause:", "  ok #1/1: a log line", "ok #1/1: fill ", "crash #1/1: FAILED: child exited with status 3"} {
		if !strings.Contains(joined, want) {
			t.Errorf("log lacks %q:\n%s", want, joined)
		}
	}
}

func TestMeasureInterleavesRepetitions(t *testing.T) {
	cfg := fakeConfig("ok", "ok2")
	cfg.Count = 2
	res, err := Measure(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.GCPause {
		got = append(got, fmt.Sprintf("%s/%d", p.Adapter, p.Repetition))
	}
	if strings.Join(got, " ") != "ok/0 ok2/0 ok/1 ok2/1" {
		t.Fatalf("order %v, want A B A B", got)
	}
}

func TestMeasureCancelKillsChild(t *testing.T) {
	cfg := fakeConfig("ok", "hang", "ok2")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Progress = func(_, _ int, desc string) {
		if strings.HasPrefix(desc, "hang") {
			cancel()
		}
	}
	start := time.Now()
	res, err := Measure(ctx, cfg)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v, want interrupted wrapping context.Canceled", err)
	}
	// The hanging child sleeps a minute: returning early means it was killed.
	if el := time.Since(start); el > 20*time.Second {
		t.Fatalf("Measure took %v after cancel", el)
	}
	if res == nil || !res.Interrupted || len(res.GCPause) != 1 || res.GCPause[0].Adapter != "ok" {
		t.Fatalf("what was measured before the cancel is lost: %+v", res)
	}
}

func TestMeasureRejectsBadConfig(t *testing.T) {
	cfg := fakeConfig("ok")
	cfg.Count = 0
	if _, err := Measure(context.Background(), cfg); err == nil {
		t.Fatal("count 0 accepted")
	}
	cfg = fakeConfig("cdb")
	if _, err := Measure(context.Background(), cfg); err == nil {
		t.Fatal("file store accepted")
	}
}

// TestMeasureRealChild runs the whole protocol: a real child of this test
// binary fills a map and reports.
func TestMeasureRealChild(t *testing.T) {
	cfg := Config{
		Params:   Params{Entries: 3000, ValueSize: 64, GOGC: 10, Seed: 1, Verify: 3000, GCReads: 500, GCReadTime: 10 * time.Second},
		Adapters: []string{"map"},
		Count:    1,
	}
	res, err := Measure(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := res.GCPause[0]
	// At least one heap object per entry: the value slices (short keys can
	// share tiny-allocator blocks).
	if p.Adapter != "map" || p.Verified != 3000 || p.HeapObjects < 3000 || p.Error != "" {
		t.Fatalf("child result %+v", p)
	}
}

func TestChildRejectsBadConfiguration(t *testing.T) {
	t.Setenv(ChildEnv, `{"adapter":"map","entries":0}`)
	var out, errOut strings.Builder
	code, isChild := ServeChild(context.Background(), &out, &errOut)
	if !isChild || code != 2 || out.Len() != 0 || !strings.Contains(errOut.String(), "--entries") {
		t.Fatalf("code %d, child %v, stdout %q, stderr %q", code, isChild, out.String(), errOut.String())
	}
	t.Setenv(ChildEnv, `{"adapter":"map","bogus":1}`)
	errOut.Reset()
	if code, _ := ServeChild(context.Background(), &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "bogus") {
		t.Fatalf("unknown field: code %d, stderr %q", code, errOut.String())
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
