package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/spf13/cobra"

	"github.com/cachebench/cachebench/internal/parse"
)

// TestExamples runs every example command of the code blocks of README.md
// and docs/*.md, and of every command's --help (cobra's Example fields),
// through Execute, in one scratch directory, so that no documented example
// can rot. Sizes are shrunk so the whole set runs in a few minutes; the
// rules are these and nothing else:
//
//	run        --keys above 50,000 become 2,000 and a run without --keys gets
//	           --keys 2000 (50,000 keys, the CI suite's size, run as written);
//	           --count above 5 becomes 5, no --count gets --count 2;
//	           get-or-set/umem gets --keys 128 --value-size 0-262144
//	           --capacity 0.5 (an 8 MiB budget: memcached needs 2 MiB);
//	           --duration becomes 1s; --ops above 50,000 becomes 2,000;
//	           with --rate, --count becomes 1
//	advise     --keys above 2,000 become 2,000 and no --keys gets --keys 2000
//	           (but for a trace); a --capacity that is not a fraction becomes
//	           10%; --budget 20s; without --adapters: --adapters
//	           shardcache,otter,map
//	gc-pause   --entries 20000, --count 1, --gc-read-time 2s; without
//	           --adapters: --adapters map,shardcache
//	trace gen  --requests 20000, --keys 1000
//	gen:       a streamed trace (hitratio --trace gen:KIND,...): requests
//	           above 20,000 become 20,000, keys above 1,000 become 1,000
//	build      --synthetic 2000
//	compare    --min-samples above 5 becomes 5 (the runs' --count)
//	hitratio   --repeat becomes 1; --suite without --adapters gets
//	           --adapters lru,shardcache
//	paths      /tmp/NAME becomes NAME in the scratch directory
//
// A pipe runs its cachebench side (its output is checked by the report
// tests; benchstat is not needed here), a redirection (>>) is dropped,
// "&&" runs both sides. Examples that name servers that do not exist here
// (--memcached-addr, --redis-addr, --redis-cluster) are parsed (flags and
// arguments checked, committed files they name found), not run; so are
// gate's (it builds two git revisions of a repository) and those that
// start memcached or redis-server when they are not installed. compare may exit 1 (it found
// a regression between two runs, which is what it is for); every other
// example must exit 0.
//
// Inputs the examples name and do not make themselves are made first by
// makeExampleInputs.
func TestExamples(t *testing.T) {
	if raceEnabled {
		t.Skip("the examples run the measuring loops; under -race they take minutes (.ci/run runs this test without -race)")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	examples := cobraExamples(newRootCmd())
	pages, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range append([]string{filepath.Join(repo, "README.md")}, pages...) {
		rd, err := pageExamples(repo, page)
		if err != nil {
			t.Fatal(err)
		}
		examples = append(examples, rd...)
	}
	if len(examples) < 30 {
		t.Fatalf("found %d examples; the extraction is broken", len(examples))
	}
	dir := t.TempDir()
	t.Chdir(dir)
	makeExampleInputs(t, repo)
	for _, ex := range examples {
		for _, args := range ex.commands {
			args = shrinkExample(args)
			name := ex.source + ": " + strings.Join(args, " ")
			if why := notRunHere(args); why != "" {
				if err := parseOnly(args); err != nil {
					t.Errorf("%s: %v", name, err)
				}
				// A committed file it names must exist in the repository.
				for _, a := range args {
					if strings.HasPrefix(a, "results/") {
						if m, _ := filepath.Glob(filepath.Join(repo, a)); len(m) == 0 {
							t.Errorf("%s: %s names no file of the repository", name, a)
						}
					}
				}
				t.Logf("parsed, not run (%s): %s", why, name)
				continue
			}
			var out, errb bytes.Buffer
			start := time.Now()
			code := Execute(context.Background(), args, &out, &errb)
			ok := code == 0 || (args[0] == "compare" && code == 1)
			if !ok {
				t.Errorf("%s: exit %d\n%s", name, code, errb.String())
			} else {
				t.Logf("ran (exit %d, %s): %s", code, time.Since(start).Round(10*time.Millisecond), name)
			}
		}
	}
}

// example is one documented command line, split into the cachebench
// commands it runs (a line with && holds two).
type example struct {
	source   string
	commands [][]string
}

// cobraExamples collects the Example lines of every command.
func cobraExamples(root *cobra.Command) []example {
	var out []example
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			if cmds := exampleCommands(line); len(cmds) > 0 {
				out = append(out, example{source: c.CommandPath() + " --help", commands: cmds})
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// skipMarker, on the line before a code block, leaves the block's
// commands out: for a command that is documented before it exists in this
// tree. The reason follows the marker.
const skipMarker = "<!-- examples: skip"

// pageExamples collects the cachebench lines of a markdown page's code
// blocks, joining lines continued with a backslash, and leaves out the
// blocks after a skipMarker line.
func pageExamples(repo, path string) ([]example, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name, err := filepath.Rel(repo, path)
	if err != nil {
		return nil, err
	}
	var out []example
	in, skip := false, false
	var cont string
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			if !in {
				skip = false
			}
			continue
		}
		if !in {
			if t := strings.TrimSpace(line); t != "" {
				skip = strings.HasPrefix(t, skipMarker)
			}
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cont += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		line, cont = cont+line, ""
		if skip {
			continue
		}
		if cmds := exampleCommands(line); len(cmds) > 0 {
			out = append(out, example{source: name + ":" + strconv.Itoa(i+1), commands: cmds})
		}
	}
	return out, nil
}

// forLoop is the one loop form the examples use: for VAR in WORDS; do
// COMMAND; done.
var forLoop = regexp.MustCompile(`^for (\w+) in ([^;]+); do (.+); done$`)

// exampleCommands splits a shell line into the cachebench commands it
// runs: comments and other programs are skipped, pipes keep their
// cachebench side, redirections are dropped, a for loop is unrolled.
func exampleCommands(line string) [][]string {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return nil
	}
	if m := forLoop.FindStringSubmatch(line); m != nil {
		var out [][]string
		for _, v := range strings.Fields(m[2]) {
			out = append(out, exampleCommands(strings.ReplaceAll(m[3], "$"+m[1], v))...)
		}
		return out
	}
	var out [][]string
	for _, part := range strings.Split(line, "&&") {
		part, _, _ = strings.Cut(part, "|")
		part, _, _ = strings.Cut(part, ">>")
		words := shellWords(part)
		if len(words) > 1 && words[0] == "cachebench" {
			out = append(out, words[1:])
		}
	}
	return out
}

// shellWords splits s into words, honouring single and double quotes.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// shrinkExample applies the size rules of TestExamples' comment.
func shrinkExample(args []string) []string {
	args = slices.Clone(args)
	value := func(flag string) (int, bool) {
		for i, a := range args {
			if a == flag && i+1 < len(args) {
				return i + 1, true
			}
			if v, ok := strings.CutPrefix(a, flag+"="); ok {
				args[i] = flag
				args = slices.Insert(args, i+1, v)
				return i + 1, true
			}
		}
		return 0, false
	}
	set := func(flag, v string) {
		if i, ok := value(flag); ok {
			args[i] = v
		} else {
			args = append(args, flag, v)
		}
	}
	atMost := func(flag string, limit, to int, add bool) {
		i, ok := value(flag)
		if !ok {
			if add {
				args = append(args, flag, strconv.Itoa(to))
			}
			return
		}
		if n, err := parse.Count(args[i]); err == nil && n > int64(limit) {
			args[i] = strconv.Itoa(to)
		}
	}
	for i, a := range args {
		if rest, ok := strings.CutPrefix(a, "/tmp/"); ok {
			args[i] = rest
		}
		if spec, ok := strings.CutPrefix(a, genPrefix); ok {
			args[i] = genPrefix + shrinkGenSpec(spec)
		}
	}
	switch {
	case args[0] == "run":
		if i, ok := value("--workload"); ok && strings.Contains(args[i], "umem") {
			set("--keys", "128")
			set("--value-size", "0-262144")
			set("--capacity", "0.5")
		}
		atMost("--keys", 50_000, 2000, true)
		atMost("--count", 5, 5, false)
		if _, ok := value("--count"); !ok {
			args = append(args, "--count", "2")
		}
		if _, ok := value("--duration"); ok {
			set("--duration", "1s")
		}
		atMost("--ops", 50_000, 2000, false)
		if _, ok := value("--rate"); ok {
			set("--count", "1")
		}
	case args[0] == "advise":
		if i, ok := value("--access"); !ok || !strings.HasPrefix(args[i], "trace:") {
			atMost("--keys", 2000, 2000, true)
		}
		if i, ok := value("--capacity"); ok {
			// An entry count or a size for the documented key count
			// becomes the same share of the shrunk one.
			if !strings.Contains(args[i], "%") && !strings.HasPrefix(args[i], "0.") {
				args[i] = "10%"
			}
		}
		set("--budget", "20s")
		if _, ok := value("--adapters"); !ok {
			args = append(args, "--adapters", "shardcache,otter,map")
		}
	case args[0] == "gc-pause":
		set("--entries", "20000")
		set("--count", "1")
		set("--gc-read-time", "2s")
		if _, ok := value("--adapters"); !ok {
			args = append(args, "--adapters", "map,shardcache")
		}
	case args[0] == "trace" && len(args) > 1 && args[1] == "gen":
		set("--requests", "20000")
		set("--keys", "1000")
	case args[0] == "build":
		if _, ok := value("--synthetic"); ok {
			set("--synthetic", "2000")
		}
	case args[0] == "compare":
		atMost("--min-samples", 5, 5, false)
	case args[0] == "hitratio":
		if _, ok := value("--suite"); ok {
			if _, ok := value("--adapters"); !ok {
				args = append(args, "--adapters", "lru,shardcache")
			}
		}
		atMost("--repeat", 1, 1, false)
	}
	return args
}

// shrinkGenSpec applies the gen: rule of TestExamples' comment.
func shrinkGenSpec(spec string) string {
	items := strings.Split(spec, ",")
	for i, it := range items {
		k, v, _ := strings.Cut(it, "=")
		limit := map[string]int64{"requests": 20_000, "keys": 1_000}[k]
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && limit > 0 && n > limit {
			items[i] = k + "=" + strconv.FormatInt(limit, 10)
		}
	}
	return strings.Join(items, ",")
}

// notRunHere says why an example cannot run on this machine, or "".
func notRunHere(args []string) string {
	if args[0] == "gate" {
		return "builds two git revisions of a repository; its own end-to-end test and .ci/run's gate run it"
	}
	for _, a := range args {
		for _, f := range []string{"--memcached-addr", "--redis-addr", "--redis-cluster"} {
			if a == f || strings.HasPrefix(a, f+"=") {
				return "names servers that do not exist here"
			}
		}
	}
	if args[0] == "run" {
		joined := strings.Join(args, " ")
		for prog, adapters := range map[string][]string{"memcached": {"network", "memcached"}, "redis-server": {"network", "redis"}} {
			for _, a := range adapters {
				if strings.Contains(joined, a) {
					if _, err := exec.LookPath(prog); err != nil {
						return prog + " is not installed"
					}
				}
			}
		}
	}
	return ""
}

// parseOnly checks an example's command, flags and arguments without
// running it.
func parseOnly(args []string) error {
	root := newRootCmd()
	c, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	c.InitDefaultHelpFlag()
	if err := c.ParseFlags(rest); err != nil {
		return err
	}
	return c.ValidateArgs(c.Flags().Args())
}

// makeExampleInputs writes the inputs the examples read and do not make:
// data files for build, a Twitter-format trace, results for report and
// compare, the committed CI baseline.
func makeExampleInputs(t *testing.T, repo string) {
	t.Helper()
	write := func(name string, data []byte) {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var tsv, csv, jsonl, twitter bytes.Buffer
	csv.WriteString("key,value\n")
	for i := range 500 {
		fmt.Fprintf(&tsv, "key_%d\tval_%d\n", i, i)
		fmt.Fprintf(&csv, "key_%d,group_%d\n", i, i%10) // repeated values: --dedup
		fmt.Fprintf(&jsonl, "{\"key\": \"event_%d\", \"value\": \"payload %d\"}\n", i, i)
	}
	// Enough objects that 1% of them is above every adapter's smallest
	// budget (shardcache: 16 KiB).
	for i := range 60000 {
		fmt.Fprintf(&twitter, "%d,obj_%d,8,%d,1,get,0\n", i, (i*7919)%20000, 100+i%400)
	}
	// Typed values: JSON lines of several types (a "weights" vector among
	// them) and prices as CSV text, without a header (the example has no
	// --skip-header), that --value-type float64 parses.
	var features, prices bytes.Buffer
	features.WriteString("{\"key\": \"weights\", \"value\": [0.5, 0.25, 0.125]}\n")
	for i := range 200 {
		fmt.Fprintf(&features, "{\"key\": \"count_%d\", \"value\": %d}\n", i, i)
		fmt.Fprintf(&features, "{\"key\": \"name_%d\", \"value\": \"item %d\"}\n", i, i)
		fmt.Fprintf(&prices, "sku_%d,%d.%02d\n", i, i, i%100)
	}
	write("features.jsonl", features.Bytes())
	write("prices.csv", prices.Bytes())
	write("data.tsv", tsv.Bytes())
	write("export.csv", csv.Bytes())
	write("events.json", jsonl.Bytes())
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	write("w.csv.zst", enc.EncodeAll(twitter.Bytes(), nil))
	base, err := os.ReadFile(filepath.Join(repo, "results/baseline/ci-intel-r-xeon-r-processor.json"))
	if err != nil {
		t.Fatal(err)
	}
	write("results/baseline/ci-intel-r-xeon-r-processor.json", base)
	makeRecording(t, ".") // docs/record.md replays a recorder's files
	for _, args := range [][]string{
		{"run", "--adapters", "map,shardcache,fastcache", "--keys", "2000", "--count", "5", "--format", "json", "-o", "results/my-machine.json"},
		{"run", "--adapters", "map,shardcache,fastcache", "--keys", "2000", "--count", "5", "--format", "json", "-o", "old.json"},
		{"run", "--adapters", "map,shardcache,fastcache", "--keys", "2000", "--count", "5", "--format", "json", "-o", "new.json"},
	} {
		var out, errb bytes.Buffer
		if code := Execute(context.Background(), append(args, "--progress", "never"), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}
}

// Every extraction rule on a line of each kind.
func TestExampleExtraction(t *testing.T) {
	for line, want := range map[string]string{
		"  cachebench run --format json -o results/x.json && cachebench report results":    "run --format json -o results/x.json | report results",
		"cachebench run --format gobench | benchstat -col /impl -":                         "run --format gobench",
		`cachebench compare --format markdown old.json new.json >> "$GITHUB_STEP_SUMMARY"`: "compare --format markdown old.json new.json",
		"cachebench report x.json | benchstat -col '/impl@(map shardcache)' -":             "report x.json",
		"# a comment":                 "",
		"go install ./cmd/cachebench": "",
	} {
		var got []string
		for _, c := range exampleCommands(line) {
			got = append(got, strings.Join(c, " "))
		}
		if strings.Join(got, " | ") != want {
			t.Errorf("%q: %q, want %q", line, strings.Join(got, " | "), want)
		}
	}
	for in, want := range map[string]string{
		"run":                           "run --keys 2000 --count 2",
		"run --keys 1000000 --count 10": "run --keys 2000 --count 5",
		"run --keys 50000 --count 3":    "run --keys 50000 --count 3",
		"run --workload get-or-set/umem --keys 1024":                                     "run --workload get-or-set/umem --keys 128 --value-size 0-262144 --capacity 0.5 --count 2",
		"gc-pause --quick":                                                               "gc-pause --quick --entries 20000 --count 1 --gc-read-time 2s --adapters map,shardcache",
		"run --rate 50k --duration 10s --ops 2000000":                                    "run --rate 50k --duration 1s --ops 2000 --keys 2000 --count 1",
		"run --keys 1M":                                                                  "run --keys 2000 --count 2",
		"advise --keys 1M --capacity 100000":                                             "advise --keys 2000 --capacity 10% --budget 20s --adapters shardcache,otter,map",
		"advise --access trace:lirs/cs --adapters lru":                                   "advise --access trace:lirs/cs --adapters lru --budget 20s",
		"build --synthetic 1000000 -o /tmp/demo.cache":                                   "build --synthetic 2000 -o demo.cache",
		"trace gen --requests=1000000 -o z.oracleGeneral":                                "trace gen --requests 20000 -o z.oracleGeneral --keys 1000",
		"hitratio --trace gen:zipf,requests=1000000000,keys=500,alpha=0.9 --sample 0.01": "hitratio --trace gen:zipf,requests=20000,keys=500,alpha=0.9 --sample 0.01",
	} {
		if got := strings.Join(shrinkExample(strings.Fields(in)), " "); got != want {
			t.Errorf("shrink %q: %q, want %q", in, got, want)
		}
	}
}
