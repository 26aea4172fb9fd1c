package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestInspectText(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "k.cache")
	if code, _, errs := storeCLI(t, "build", "--synthetic", "1000", "-o", out, "--seed", "5"); code != 0 {
		t.Fatal(errs)
	}
	code, stdout, stderr := storeCLI(t, "inspect", "--verify", "--list", "2", "--get", "key_999", "--get", "key_1000", out)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"entries          1000", "buckets          ", "seed 0x0000000000000005", "version 4",
		"probe lengths (buckets)", "entries per bucket", "key sizes (bytes)", "value sizes (bytes)", "dedup            0 references",
		"inline           1000 keys in their bucket, 0 in the records section", "bucket fill      0.6",
		"verify           ok", `get "key_999" = "val_999"`, `get "key_1000": not found`, "\nkeys\n  \"key_",
		"records section  offset 128", "index section", "header checksum",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

func TestInspectJSON(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "k.cache")
	if code, _, errs := storeCLI(t, "build", "--synthetic", "300", "-o", out); code != 0 {
		t.Fatal(errs)
	}
	code, stdout, _ := storeCLI(t, "inspect", "--format", "json", "--stats", "--list", "1000", out)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var rep struct {
		Stats struct {
			Entries      uint64 `json:"entries"`
			Buckets      uint64 `json:"buckets"`
			Inline       uint64 `json:"inline"`
			ProbeLengths []struct {
				Min, Max, Count uint64
			} `json:"probe_lengths"`
		} `json:"stats"`
		Keys   []string `json:"keys"`
		Header struct {
			Buckets uint64 `json:"buckets"`
		} `json:"header"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, b := range rep.Stats.ProbeLengths {
		n += b.Count
	}
	if rep.Stats.Entries != 300 || rep.Stats.Inline != 300 || rep.Stats.Buckets != rep.Header.Buckets || rep.Stats.Buckets < 40 || n != 300 || len(rep.Keys) != 300 {
		t.Fatalf("%+v", rep)
	}
}

func TestInspectNotOurs(t *testing.T) {
	dir := t.TempDir()
	rnd := make([]byte, 5000)
	for i := range rnd {
		rnd[i] = byte(i * 131 >> 2)
	}
	cdb := make([]byte, 2048)
	for i := 0; i < 2048; i += 8 {
		cdb[i+1] = 8 // CDB header: 256 pointers to offset 2048
	}
	files := map[string][]byte{"empty": nil, "text.txt": []byte("hello\tworld\n"), "random.bin": rnd, "fake.cdb": cdb}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := storeCLI(t, "inspect", p)
		if code != 2 || !strings.Contains(stderr, "not a cachebench file") || !strings.Contains(stderr, p) || stdout != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q", name, code, stderr, stdout)
		}
	}
	if code, _, stderr := storeCLI(t, "inspect", filepath.Join(dir, "absent")); code != 2 || !strings.Contains(stderr, "absent") {
		t.Errorf("missing file: exit %d, %q", code, stderr)
	}
	if code, _, _ := storeCLI(t, "inspect"); code != 2 {
		t.Errorf("no argument: exit %d", code)
	}
}

func TestInspectCorrupt(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "c.cache")
	if code, _, errs := storeCLI(t, "build", "--synthetic", "100", "-o", out); code != 0 {
		t.Fatal(errs)
	}
	data, _ := os.ReadFile(out)
	// A flipped bit in a value: Open succeeds, --verify reports it.
	data[200] ^= 0x10
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := storeCLI(t, "inspect", "--verify", out)
	if code != 2 || !strings.Contains(stdout, "verify           FAILED") || !strings.Contains(stderr, "checksum mismatch") {
		t.Errorf("flipped bit: exit %d, stderr %q", code, stderr)
	}
	// Truncated: Open refuses it.
	if err := os.WriteFile(out, data[:len(data)-8], 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := storeCLI(t, "inspect", out); code != 2 || !strings.Contains(stderr, "corrupt") {
		t.Errorf("truncated: exit %d, stderr %q", code, stderr)
	}
}

// TestInspectCorruptionSweep mutates a built store at many byte positions
// and runs plain `inspect` and `inspect --get` on each: a value printed
// with exit 0 must be the right one. It logs its counts (go test -v).
func TestInspectCorruptionSweep(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.cache")
	if code, _, errs := storeCLI(t, "build", "--synthetic", "2000", "--seed", "12345", "-o", good); code != 0 {
		t.Fatal(errs)
	}
	data, _ := os.ReadFile(good)
	p := filepath.Join(dir, "m.cache")
	// The reproducer first: one byte of the value of key_1486.
	at := strings.Index(string(data), "key_1486val_1486") + len("key_1486va")
	positions := []int{at}
	for i := 0; i < len(data); i += 1 + len(data)/400 {
		positions = append(positions, i)
	}
	var tried, openFailed, plainFailed, getFailed, wrong int
	for _, pos := range positions {
		b := append([]byte{}, data...)
		b[pos] ^= 0x3e
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		tried++
		code, stdout, _ := storeCLI(t, "inspect", p)
		if code != 0 {
			plainFailed++
			if stdout == "" {
				openFailed++
			}
		}
		for _, k := range []string{"key_1486", "key_0", "key_999", "key_1999", "key_" + strconv.Itoa(pos%2000)} {
			code, stdout, _ := storeCLI(t, "inspect", "--get", k, p)
			if code != 0 {
				getFailed++
				continue
			}
			want := `get "` + k + `" = "val_` + strings.TrimPrefix(k, "key_") + `"`
			if !strings.Contains(stdout, want) {
				wrong++
				t.Errorf("byte %d changed: inspect --get %s exited 0 with\n%s", pos, k, stdout)
			}
		}
	}
	t.Logf("CLI sweep: %d mutated files; plain inspect exit 2 on %d (%d at open); inspect --get exit 2 on %d lookups; wrong values with exit 0: %d",
		tried, plainFailed, openFailed, getFailed, wrong)
}
