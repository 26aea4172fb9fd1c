package report

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// fixtureJSON is runFixture encoded as a results file.
func fixtureJSON(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSON(&b, runFixture("Test CPU")); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestResultFileHoldsOneDocument: a file with two results (>>) or
// trailing data is refused with the line where the extra starts.
func TestResultFileHoldsOneDocument(t *testing.T) {
	one := fixtureJSON(t)
	lines := bytes.Count(one, []byte("\n"))
	if _, err := ParseResult(one, "one.json"); err != nil {
		t.Fatalf("one document: %v", err)
	}
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"two documents":  {append(append([]byte(nil), one...), one...), "a second JSON document"},
		"trailing text":  {append(append([]byte(nil), one...), "garbage\n"...), "trailing data"},
		"trailing brace": {append(append([]byte(nil), one...), "}"...), "trailing data"},
	} {
		_, err := ParseResult(tc.data, "x.json")
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an InputError saying %q", name, err, tc.want)
			continue
		}
		if want := "x.json:" + strconv.Itoa(lines+1) + ":"; !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want the line %s", name, err, want)
		}
	}
}

// TestImpossibleFiguresRefused: figures no measurement produces are
// refused in both formats with file:line, and the line is the figure's.
func TestImpossibleFiguresRefused(t *testing.T) {
	good := "goos: linux\ngoarch: amd64\ncpu: Test CPU\nBenchmarkLookup/impl=map/workload=w-1 \t 1000\t 100.0 ns/op\n"
	if _, err := ParseResult([]byte(good), "g.txt"); err != nil {
		t.Fatalf("good gobench: %v", err)
	}
	for _, tc := range []struct{ line, want string }{
		{"BenchmarkLookup/impl=map/workload=w-1 \t 1000\t NaN ns/op", "not a finite number"},
		{"BenchmarkLookup/impl=map/workload=w-1 \t 1000\t +Inf ns/op", "not a finite number"},
		{"BenchmarkLookup/impl=map/workload=w-1 \t 1000\t Inf ns/op", "not a finite number"},
		{"BenchmarkLookup/impl=map/workload=w-1 \t 1000\t abc ns/op", ""},
		{"BenchmarkLookup/impl=map/workload=w-1 \t 1000\t -100.0 ns/op", "ns_per_op"},
		{"BenchmarkLookup/impl=map/workload=w-1 \t 0\t 100.0 ns/op", "0 operations"},
		{"BenchmarkLookup/impl=map/workload=w-1 \t 1000\t 100.0 ns/op\t -3 hit-ratio", "hit_ratio"},
		{"BenchmarkLookup/impl=map/workload=w-1 \t 1000\t 100.0 ns/op\t 1.5 hit-ratio", "above 1"},
		{"BenchmarkLookup/impl=map/workload=w-1 \t 1000\t 100.0 ns/op\t NaN allocs/op", "allocs/op"},
		{"BenchmarkGCPause/impl=map/entries=10-1 \t 1\t NaN fill-sec", "not a finite number"},
		{"# cachebench env kind=\"bogus\"", `unknown kind "bogus"`},
	} {
		_, err := ParseResult([]byte(good+tc.line+"\n"), "b.txt")
		if err == nil || !strings.Contains(err.Error(), "b.txt:5:") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want b.txt:5 and %q", tc.line, err, tc.want)
		}
	}

	edits := []struct {
		name, want string
		edit       func(*Result)
	}{
		{"negative ns/op", "ns_per_op: -5 is below 0", func(r *Result) { r.Measurements[1].Samples[2].NsPerOp = -5 }},
		{"zero ops", "0 operations", func(r *Result) { r.Measurements[1].Samples[0].Ops = 0 }},
		{"negative ops", "-4 operations", func(r *Result) { r.Measurements[1].Samples[0].Ops = -4 }},
		{"hit ratio -300%", "hit_ratio: -3 is below 0", func(r *Result) { r.Measurements[1].Samples[1].HitRatio = -3 }},
		{"negative wrong", "wrong", func(r *Result) { r.Measurements[1].Samples[1].Wrong = -1 }},
		{"unknown kind", `unknown kind "bogus"`, func(r *Result) { r.Kind = "bogus" }},
	}
	for _, e := range edits {
		r := runFixture("Test CPU")
		e.edit(r)
		var b bytes.Buffer
		if err := WriteJSON(&b, r); err != nil {
			t.Fatal(err)
		}
		_, err := ParseResult(b.Bytes(), "r.json")
		var bad *BadValue
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), e.want) {
			t.Errorf("%s: %v, want a BadValue saying %q", e.name, err, e.want)
			continue
		}
		// The line named holds the field named.
		line, scanErr := lineIn(err.Error(), "r.json")
		if scanErr != nil {
			t.Errorf("%s: no line in %v", e.name, err)
			continue
		}
		field := bad.Path[len(bad.Path)-1].(string)
		if got := strings.Split(b.String(), "\n")[line-1]; !strings.Contains(got, `"`+field+`"`) {
			t.Errorf("%s: line %d is %q, not the field %s", e.name, line, got, field)
		}
	}
}

// lineIn reads N from "...name:N: ...".
func lineIn(msg, name string) (int, error) {
	i := strings.LastIndex(msg, name+":")
	if i < 0 {
		return 0, errors.New("no " + name)
	}
	num, _, _ := strings.Cut(msg[i+len(name)+1:], ":")
	return strconv.Atoi(num)
}

// FuzzParseResult: whatever the bytes, ParseResult returns a result that
// passes Check, or an error; it never panics or loops, and a result it
// accepts encodes as JSON (no NaN reaches merge's encoder).
func FuzzParseResult(f *testing.F) {
	f.Add(fixtureJSON(f))
	f.Add([]byte("cpu: X\nBenchmarkLookup/impl=map-1 \t 10\t NaN ns/op\n"))
	f.Add([]byte("BenchmarkLookup/impl=map-1 \t 10\t 5 ns/op\t 0.5 hit-ratio\n"))
	f.Add([]byte(`{"tool":"cachebench","schema":1}{"tool":"cachebench","schema":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseResult(data, "f")
		if err != nil {
			return
		}
		if err := r.Check(); err != nil {
			t.Fatalf("accepted a result that fails Check: %v", err)
		}
		if err := WriteJSON(&bytes.Buffer{}, r); err != nil {
			t.Fatalf("accepted a result that does not encode: %v", err)
		}
	})
}
