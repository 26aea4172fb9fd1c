package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildTypedJSONL builds a JSON-lines file holding every JSON value
// type and reads each back through inspect, text and JSON: the values
// keep their JSON type.
func TestBuildTypedJSONL(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "f.jsonl", `{"key":"name","value":"Ada"}
{"key":"age","value":36}
{"key":"score","value":0.75}
{"key":"admin","value":true}
{"key":"ids","value":[3,1,2]}
{"key":"vec","value":[0.5,1,-2]}
{"key":"tags","value":["x","y"]}
{"key":"raw","value_b64":"AAE="}
`)
	out := filepath.Join(dir, "f.cache")
	if code, _, stderr := storeCLI(t, "build", "--input", in, "-o", out); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	keys := []string{"name", "age", "score", "admin", "ids", "vec", "tags", "raw"}
	args := []string{"inspect", "--stats"}
	for _, k := range keys {
		args = append(args, "--get", k)
	}
	code, stdout, stderr := storeCLI(t, append(args, out)...)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		`get "name" (string) = "Ada"`, `get "age" (int64) = 36`, `get "score" (float64) = 0.75`,
		`get "admin" (bool) = true`, `get "ids" ([]int64) = [3 1 2]`, `get "vec" ([]float64) = [0.5 1 -2]`,
		`get "tags" ([]string) = ["x" "y"]`, `get "raw" = "\x00\x01"`, "value types", "[]float64  1   12.5%",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = storeCLI(t, append([]string{"inspect", "--format", "json", "--stats", "--get", "vec", "--get", "age"}, out)...)
	if code != 0 {
		t.Fatalf("inspect json: exit %d", code)
	}
	var rep struct {
		Stats struct {
			Types map[string]int `json:"types"`
		} `json:"stats"`
		Gets []struct {
			Key, Type string
			Value     json.RawMessage
		} `json:"gets"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	compact := func(raw []byte) string {
		var b bytes.Buffer
		json.Compact(&b, raw)
		return b.String()
	}
	if len(rep.Gets) != 2 || rep.Gets[0].Type != "[]float64" || compact(rep.Gets[0].Value) != "[0.5,1,-2]" ||
		rep.Gets[1].Type != "int64" || compact(rep.Gets[1].Value) != "36" || rep.Stats.Types["string"] != 1 || rep.Stats.Types["bytes"] != 1 {
		t.Fatalf("%s", stdout)
	}
}

// TestBuildValueType: --value-type for TSV, CSV and synthetic values,
// and its errors (exit 2 with the line, the destination untouched).
func TestBuildValueType(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "v.cache")
	tsv := writeFile(t, dir, "p.tsv", "a\t1.5\nb\t-2\n")
	if code, _, stderr := storeCLI(t, "build", "--input", tsv, "--value-type", "float64", "-o", out); code != 0 {
		t.Fatalf("tsv: %s", stderr)
	}
	if _, stdout, _ := storeCLI(t, "inspect", "--get", "b", out); !strings.Contains(stdout, `get "b" (float64) = -2`) {
		t.Fatalf("tsv: %s", stdout)
	}
	csv := writeFile(t, dir, "v.csv", "a,\"[1,2]\"\nb,[]\n")
	if code, _, stderr := storeCLI(t, "build", "--input", csv, "--value-type", "float64s", "-o", out); code != 0 {
		t.Fatalf("csv: %s", stderr)
	}
	if _, stdout, _ := storeCLI(t, "inspect", "--get", "a", "--get", "b", out); !strings.Contains(stdout, `get "a" ([]float64) = [1 2]`) || !strings.Contains(stdout, `get "b" ([]float64) = []`) {
		t.Fatalf("csv: %s", stdout)
	}
	if code, _, stderr := storeCLI(t, "build", "--synthetic", "100", "--value-type", "float64s:32", "-o", out); code != 0 {
		t.Fatalf("synthetic: %s", stderr)
	}
	_, stdout, _ := storeCLI(t, "inspect", "--stats", "--get", "key_3", out)
	if !strings.Contains(stdout, `get "key_3" ([]float64) = [3 3.25 3.5`) || !strings.Contains(stdout, "[]float64  100  100.0%") {
		t.Fatalf("synthetic: %s", stdout)
	}
	old, _ := os.ReadFile(out)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--input", writeFile(t, dir, "bad.tsv", "a\t1\nb\tx\n"), "--value-type", "int64"}, `bad.tsv:2: int64 value "x"`},
		{[]string{"--input", writeFile(t, dir, "bad.jsonl", `{"key":"a","value":"s"}`+"\n"), "--value-type", "int64"}, "bad.jsonl:1: value is string, want int64"},
		{[]string{"--input", writeFile(t, dir, "len.csv", "a,\"[1,2]\"\n"), "--value-type", "int64s:3"}, "len.csv:1: list of 2 elements, want 3"},
		{[]string{"--synthetic", "5", "--value-type", "complex128"}, "unknown value type"},
		{[]string{"--synthetic", "5", "--value-type", "strings"}, "need a length"},
		{[]string{"--synthetic", "5", "--value-type", "int64:4"}, "only a list type takes a length"},
	} {
		code, stdout, stderr := storeCLI(t, append(append([]string{"build", "-o", out}, c.args...), "--progress", "never")...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
		if now, _ := os.ReadFile(out); !bytes.Equal(now, old) {
			t.Fatalf("%v: failed build changed the destination", c.args)
		}
		noTempFiles(t, dir)
	}
}
