package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// storeCLI runs the CLI in-process and returns its exit code and output.
func storeCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Execute(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// inspectGets builds nothing: it looks keys up in a store through the
// inspect command's JSON output.
func inspectGets(t *testing.T, store string, keys ...string) map[string]*string {
	t.Helper()
	args := []string{"inspect", "--format", "json", "--verify"}
	for _, k := range keys {
		args = append(args, "--get", k)
	}
	code, out, errs := storeCLI(t, append(args, store)...)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, errs)
	}
	var rep inspectReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("inspect JSON: %v\n%s", err, out)
	}
	if rep.Verify == nil || !rep.Verify.OK {
		t.Fatalf("verify: %+v", rep.Verify)
	}
	got := map[string]*string{}
	for _, g := range rep.Gets {
		if g.Found {
			var v string
			if err := json.Unmarshal(g.Value, &v); err != nil {
				t.Fatalf("%s: %s is not a string: %v", g.Key, g.Value, err)
			}
			got[g.Key] = &v
		} else {
			got[g.Key] = nil
		}
	}
	return got
}

func TestBuildFormats(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, file, content string
		args                []string
		want                map[string]string
	}{
		{"tsv", "d.tsv", "a\t1\r\n\nb\\tc\tx\\ny\\\\z\\x41\\0\n", nil,
			map[string]string{"a": "1", "b\tc": "x\ny\\zA\x00"}},
		{"tsv-header", "h.tsv", "key\tvalue\nk\tv\n", []string{"--skip-header"}, map[string]string{"k": "v"}},
		{"csv", "d.csv", "a,1\n\"b,c\",\"x\"\"y\nz\"\n", nil, map[string]string{"a": "1", "b,c": "x\"y\nz"}},
		{"jsonl", "d.data", "{\"key\":\"a\",\"value\":\"1\"}\n\n{\"value\":\"\",\"key\":\"é\"}\n", []string{"--input-format", "jsonl"},
			map[string]string{"a": "1", "é": ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := writeFile(t, dir, c.file, c.content)
			out := filepath.Join(dir, c.name+".cache")
			code, stdout, stderr := storeCLI(t, append([]string{"build", "--input", in, "-o", out, "--progress", "never"}, c.args...)...)
			if code != 0 || stderr != "" || !strings.Contains(stdout, "entries") {
				t.Fatalf("build: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			var keys []string
			for k := range c.want {
				keys = append(keys, k)
			}
			got := inspectGets(t, out, append(keys, "missing")...)
			for k, v := range c.want {
				if got[k] == nil || *got[k] != v {
					t.Errorf("%q = %v, want %q", k, got[k], v)
				}
			}
			if got["missing"] != nil {
				t.Errorf("missing key found")
			}
		})
	}
}

func TestBuildBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.cache")
	// An existing good file that every failed build must leave alone.
	if code, _, errs := storeCLI(t, "build", "--synthetic", "100", "-o", out); code != 0 {
		t.Fatalf("build: %s", errs)
	}
	old, _ := os.ReadFile(out)
	cases := []struct{ name, file, content, want string }{
		{"no-tab", "a.tsv", "a\t1\nb 2\n", "a.tsv:2: no tab"},
		{"two-tabs", "b.tsv", "a\t1\t2\n", "b.tsv:1: more than one tab"},
		{"bad-escape", "c.tsv", "ok\t1\n\nx\\q\t1\n", `c.tsv:3: key: invalid escape \q`},
		{"bad-hex", "d.tsv", "x\t\\xZZ\n", `d.tsv:1: value: invalid escape \xZZ`},
		{"trailing-backslash", "e.tsv", "x\tab\\\n", "e.tsv:1: value: backslash at end"},
		{"empty-key", "f.tsv", "a\t1\n\t2\n", "f.tsv:2: empty key"},
		{"duplicate", "g.tsv", "a\t1\nb\t2\na\t3\n", `g.tsv:3: duplicate key "a" (first at line 1)`},
		{"csv-fields", "h.csv", "a,1\nb,2,3\n", "h.csv:2: wrong number of fields"},
		{"csv-quote", "i.csv", "a,\"1\n", "i.csv:1: "},
		{"jsonl-syntax", "j.jsonl", "{\"key\":\"a\",\"value\":\"1\"}\n{\"key\":\n", "j.jsonl:2: "},
		{"jsonl-missing", "k.jsonl", "{\"key\":\"a\"}\n", `k.jsonl:1: want {"key": string, "value": value}`},
		{"jsonl-mixed", "m.jsonl", "{\"key\":\"a\",\"value\":1}\n{\"key\":\"b\",\"value\":[1,\"x\"]}\n", "m.jsonl:2: value: mixed array of numbers and strings"},
		{"jsonl-object", "n.jsonl", "{\"key\":\"a\",\"value\":{\"x\":1}}\n", "n.jsonl:1: value is an object"},
		{"jsonl-null", "o.jsonl", "{\"key\":\"a\",\"value\":null}\n", "o.jsonl:1: value is null"},
		{"jsonl-bools", "p.jsonl", "{\"key\":\"a\",\"value\":[true]}\n", "p.jsonl:1: value: element 0 is a boolean"},
		{"jsonl-unknown", "l.jsonl", "{\"key\":\"a\",\"value\":\"1\",\"x\":1}\n", `l.jsonl:1: unknown field "x"`},
		{"jsonl-case", "l.jsonl", "{\"Key\":\"a\",\"VALUE\":\"1\"}\n", `l.jsonl:1: field "Key": names are case-sensitive`},
		{"jsonl-twice", "l.jsonl", "{\"key\":\"a\",\"value\":\"1\",\"value\":\"2\"}\n", `l.jsonl:1: field "value" given twice`},
		// Lone surrogates: encoding/json made all three keys U+FFFD, one entry.
		{"jsonl-lone-surrogate", "q.jsonl", "{\"key\":\"user\\udc00\",\"value\":1}\n{\"key\":\"user\\udfff\",\"value\":1}\n", `q.jsonl:1: invalid UTF-16 escape at byte 13`},
		{"jsonl-numeric-key", "r.jsonl", "{\"key\":7,\"value\":1}\n", `r.jsonl:1: key must be a string, got a number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := writeFile(t, dir, c.file, c.content)
			code, stdout, stderr := storeCLI(t, "build", "--input", in, "-o", out)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, stderr, c.want)
			}
			if stdout != "" {
				t.Errorf("stdout on failure: %q", stdout)
			}
			if now, _ := os.ReadFile(out); !bytes.Equal(now, old) {
				t.Fatal("failed build changed the destination")
			}
			noTempFiles(t, dir)
		})
	}
	// Usage errors.
	for _, args := range [][]string{
		{"build", "-o", out},
		{"build", "--synthetic", "5"},
		{"build", "--synthetic", "5", "--input", "x.tsv", "-o", out},
		{"build", "--synthetic", "-5", "-o", out},
		{"build", "--input", filepath.Join(dir, "absent.tsv"), "-o", out},
		{"build", "--input", writeFile(t, dir, "x.parquet", ""), "-o", out},
		{"build", "--synthetic", "5", "-o", out, "--progress", "sometimes"},
		{"build", "--synthetic", "5", "-o", out, "--duplicates", "first"},
		{"build", "--synthetic", "5", "-o", out, "--max-load", "1.5"},
	} {
		if code, _, stderr := storeCLI(t, args...); code != 2 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2", args, code, stderr)
		}
	}
	// 0 is a count, refused by build; -5 is no count, refused by the
	// flag's parser: each names the flag.
	for n, want := range map[string]string{"0": "--synthetic must be at least 1, got 0", "-5": `invalid argument "-5" for "--synthetic" flag`} {
		code, _, stderr := storeCLI(t, "build", "--synthetic", n, "-o", out)
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("--synthetic %s: exit %d, stderr %q, want %q", n, code, stderr, want)
		}
	}
}

// A UTF-8 byte order mark, as Notepad and Excel write it, is no part of
// the first key of any format; --duplicates last with three distinct keys
// spelled as surrogate pairs keeps three entries.
func TestBuildBOMAndEscapes(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ file, content string }{
		{"a.tsv", "\ufeffk\tv\n"},
		{"a.csv", "\ufeffk,v\n"},
		{"a.jsonl", "\ufeff{\"key\":\"k\",\"value\":\"v\"}\n"},
	} {
		out := filepath.Join(dir, c.file+".cache")
		if code, _, errs := storeCLI(t, "build", "--input", writeFile(t, dir, c.file, c.content), "-o", out); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.file, code, errs)
		}
		if got := inspectGets(t, out, "k"); got["k"] == nil || *got["k"] != "v" {
			t.Errorf("%s: --get k after a BOM: %v", c.file, got["k"])
		}
	}
	in := writeFile(t, dir, "p.jsonl", `{"key":"\ud83d\ude00","value":"1"}`+"\n"+`{"key":"\ud83d\ude01","value":"2"}`+"\n")
	out := filepath.Join(dir, "p.cache")
	code, stdout, errs := storeCLI(t, "build", "--duplicates", "last", "--input", in, "-o", out)
	if code != 0 || !strings.Contains(stdout, ": 2 entries") {
		t.Fatalf("surrogate pairs: exit %d %s %s", code, stdout, errs)
	}
}

func TestBuildDuplicatesLastAndDedup(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("same long value ", 4) // 64 bytes: out of line, so deduplicated
	in := writeFile(t, dir, "d.tsv", "a\t"+long+"\nb\t"+long+"\na\tnew\n")
	out := filepath.Join(dir, "d.cache")
	code, stdout, stderr := storeCLI(t, "build", "--input", in, "-o", out, "--duplicates", "last", "--dedup")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "dedup: 1 references, 62 bytes saved") {
		t.Errorf("stdout %q", stdout)
	}
	got := inspectGets(t, out, "a", "b")
	if got["a"] == nil || *got["a"] != "new" || got["b"] == nil || *got["b"] != long {
		t.Errorf("a=%v b=%v", got["a"], got["b"])
	}
}

func TestBuildProgress(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.cache")
	code, stdout, stderr := storeCLI(t, "build", "--synthetic", "20000", "-o", out, "--progress", "always")
	if code != 0 || stderr == "" || strings.Contains(stdout, "\r") {
		t.Fatalf("always: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	// auto: the test's stderr is a buffer, not a terminal: plain lines.
	if code, _, stderr := storeCLI(t, "build", "--synthetic", "20000", "-o", out); code != 0 ||
		!strings.Contains(stderr, "building p.cache\n") || strings.Contains(stderr, "\r") {
		t.Fatalf("auto: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := storeCLI(t, "build", "--synthetic", "20000", "-o", out, "--progress", "never"); code != 0 || stderr != "" {
		t.Fatalf("never: exit %d, stderr %q", code, stderr)
	}
}
