package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cachebench/cachebench/internal/workloads/hitratio"
)

func TestHitRatioSampleFlagsExitTwo(t *testing.T) {
	gen := "gen:zipf,requests=2000,keys=200"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--trace", gen, "--sample", "0"}, "--sample"},
		{[]string{"--trace", gen, "--sample", "1.5"}, "--sample"},
		{[]string{"--trace", gen, "--sample", "1"}, "an integer is a count"},
		{[]string{"--trace", gen, "--sample", "lots"}, "--sample"},
		{[]string{"--trace", gen, "--sample-max", "-3"}, "--sample-max must be at least 1"},
		{[]string{"--trace", gen, "--sample-seed", "3"}, "--sample-seed needs --sample or --sample-max"},
		{[]string{"--trace", "gen:nosuch"}, "unknown trace kind"},
		{[]string{"--trace", "gen:"}, "empty list"},
		{[]string{"--trace", "gen:zipf,requests=many"}, `requests="many": not a number`},
		{[]string{"--trace", "gen:zipf,colour=red"}, `unknown key "colour"`},
		{[]string{"--trace", "gen:zipf,keys"}, "want key=value"},
		{[]string{"--trace", "gen:zipf,keys=1"}, "keys must be at least 2"},
		{[]string{"--trace", "gen:zipf,size=9-2"}, "min <= max"},
		{[]string{"--trace", "gen:zipf,keys=1000000000000"}, "generator's popularity table"},
		{[]string{"--trace", "gen:zipf,requests=100000000000000"}, "of disk (the normalized copy"},
	} {
		args := append([]string{"hitratio", "--progress", "never"}, c.args...)
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 mentioning %q", c.args, code, stderr, c.want)
		}
	}
}

func TestHitRatioSampledStream(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.json")
	code, _, stderr := runCLI(t, "hitratio", "--trace", "gen:web,requests=30000,keys=3000,alpha=0.8,seed=2,size=100",
		"--sample", "20%", "--sample-seed", "4", "--adapters", "lru", "--capacity", "0.1", "--format", "json", "-o", out,
		"--progress", "never", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res hitratio.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	tr := res.Traces[0]
	if tr.Format != "gen" || tr.Sample == nil || tr.Sample.Rate != 0.2 || tr.Sample.Seed != 4 || tr.Sample.InputRequests != 30000 || tr.MaxSize != 100 {
		t.Fatalf("trace %+v, sample %+v", tr.Summary, tr.Sample)
	}
	for _, r := range tr.Rows {
		if r.Sample == nil || r.Sample.Rate != 0.2 || r.Sample.StdErr <= 0 {
			t.Errorf("%s: sample %+v", r.Adapter, r.Sample)
		}
	}
	// --sample-max alone samples from 100%.
	code, stdout, stderr := runCLI(t, "hitratio", "--trace", "gen:zipf,requests=20000,keys=5000", "--sample-max", "300",
		"--adapters", "lru", "--capacity", "0.1", "--format", "text", "--progress", "never")
	if code != 0 || !strings.Contains(stdout, "at most 300 objects") || !strings.Contains(stdout, "300 objects of about") {
		t.Errorf("--sample-max: exit %d\n%s%s", code, stdout, stderr)
	}
	noTempFiles(t, dir)
}
