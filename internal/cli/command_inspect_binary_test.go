package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInspectBinaryKeys: a key with a NUL and a key that is not UTF-8 can
// be looked up (--get-hex, --get-b64) and come back exactly in JSON
// (key_b64, value_b64), where plain JSON strings would replace bytes.
func TestInspectBinaryKeys(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "bin.tsv", "a\\0b\tnul-key\nbad\\xff\tv\\xfe\nplain\tp\n")
	store := filepath.Join(dir, "bin.cache")
	if code, _, errs := storeCLI(t, "build", "--input", in, "-o", store); code != 0 {
		t.Fatal(errs)
	}
	code, stdout, errs := storeCLI(t, "inspect", "--format", "json", "--list", "3",
		"--get-hex", "610062", "--get-b64", base64.StdEncoding.EncodeToString([]byte("bad\xff")), "--get", "plain", store)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Gets []getResult `json:"gets"`
		Keys []keyEntry  `json:"keys"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a\x00b": "nul-key", "bad\xff": "v\xfe", "plain": "p"}
	if len(rep.Gets) != 3 {
		t.Fatalf("gets: %+v", rep.Gets)
	}
	for _, g := range rep.Gets {
		var text string // a bytes value is a JSON string
		if err := json.Unmarshal(g.Value, &text); err != nil {
			t.Fatalf("get %q: value %s: %v", g.Key, g.Value, err)
		}
		key, val := []byte(g.Key), []byte(text)
		if g.KeyB64 != "" {
			key, _ = base64.StdEncoding.DecodeString(g.KeyB64)
		}
		if g.ValueB64 != "" {
			val, _ = base64.StdEncoding.DecodeString(g.ValueB64)
		}
		if !g.Found || want[string(key)] != string(val) {
			t.Errorf("get %q: found %v, value %q", key, g.Found, val)
		}
	}
	b64 := 0
	for _, k := range rep.Keys {
		if k.KeyB64 != "" {
			b64++
			if k, _ := base64.StdEncoding.DecodeString(k.KeyB64); string(k) != "bad\xff" {
				t.Errorf("key_b64 of %q", k)
			}
		}
	}
	if len(rep.Keys) != 3 || b64 != 1 {
		t.Errorf("keys %+v: want 3, one with key_b64", rep.Keys)
	}
	if code, _, errs := storeCLI(t, "inspect", "--get-hex", "zz", store); code != exitUsage || !strings.Contains(errs, "--get-hex") {
		t.Errorf("bad hex: exit %d, %q", code, errs)
	}
}

// TestInspectFIFORefused: a FIFO with no writer is refused at once, never
// opened (the open would block past Ctrl-C).
func TestInspectFIFORefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo.cache")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	start := time.Now()
	code, _, errs := storeCLI(t, "inspect", p)
	if code != exitUsage || !strings.Contains(errs, "FIFO") || time.Since(start) > time.Second {
		t.Errorf("exit %d, %q after %v", code, errs, time.Since(start))
	}
}

// TestHitratioFIFOCancels: hitratio on a FIFO with no writer waits for
// one only until Ctrl-C, then exits 130.
func TestHitratioFIFOCancels(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo.oracleGeneral")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	var out, errb bytes.Buffer
	code := Execute(ctx, []string{"hitratio", "--trace", p, "--adapters", "lru", "--progress", "never"}, &out, &errb)
	if code != exitInterrupted || time.Since(start) > 2*time.Second {
		t.Errorf("exit %d after %v: %s", code, time.Since(start), errb.String())
	}
}

// TestResultInputsFIFOAndDevice: the result files of hitratio --from and
// gate --baseline are read as every input is (fileio.ReadInput): a FIFO
// without a writer gives up on Ctrl-C (exit 130), and /dev/zero is
// refused at once (exit 2). Both were read with os.ReadFile: the FIFO
// blocked past Ctrl-C and SIGTERM, /dev/zero was read until the kernel
// killed the process for memory.
func TestResultInputsFIFOAndDevice(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	commands := map[string]func(in string) []string{
		"hitratio --from": func(in string) []string { return []string{"hitratio", "--from", in} },
		"gate --baseline": func(in string) []string {
			return []string{"gate", "--base", "none", "--baseline", in, "./cmd/cachebench"}
		},
	}
	execute := func(t *testing.T, ctx context.Context, args []string) (int, string, time.Duration) {
		t.Helper()
		type done struct {
			code int
			errs string
		}
		ch := make(chan done, 1)
		start := time.Now()
		go func() {
			var out, errb bytes.Buffer
			code := Execute(ctx, args, &out, &errb)
			ch <- done{code, errb.String()}
		}()
		select {
		case d := <-ch:
			return d.code, d.errs, time.Since(start)
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: still running after 10 s", args)
			return 0, "", 0
		}
	}
	for name, args := range commands {
		t.Run(strings.ReplaceAll(name, " ", ""), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			if code, errs, el := execute(t, ctx, args(fifo)); code != exitInterrupted || el > 2*time.Second {
				t.Errorf("FIFO: exit %d after %v: %s", code, el, errs)
			}
			if _, err := os.Stat("/dev/zero"); err != nil {
				return
			}
			if code, errs, el := execute(t, context.Background(), args("/dev/zero")); code != exitUsage || !strings.Contains(errs, "character device") {
				t.Errorf("/dev/zero: exit %d after %v: %s", code, el, errs)
			}
		})
	}
}
