package gcpause

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestFormatKeyMatchesSprintf(t *testing.T) {
	buf := make([]byte, KeyLen)
	for _, i := range []uint64{0, 1, 9, 10, 12345, 19_999_999, MaxEntries - 1, 9_999_999_999} {
		got := string(FormatKey(buf, i))
		if want := fmt.Sprintf("key_%d", i); got != want {
			t.Errorf("FormatKey(%d) = %q, want %q", i, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { FormatKey(buf, 123) }); n != 0 {
		t.Errorf("FormatKey allocates %v times", n)
	}
}

func TestValueRoundTripAndDetection(t *testing.T) {
	for _, size := range []int{MinValueSize, 17, 23, 24, 100, 4097, MaxValueSize} {
		v := make([]byte, size)
		scratch := make([]byte, size)
		FillValue(v, 42)
		if !VerifyValue(v, scratch, 42, size) {
			t.Fatalf("size %d: value of key 42 does not verify", size)
		}
		if idx, ok := DecodeValue(v); idx != 42 || !ok {
			t.Fatalf("size %d: DecodeValue = %d, %v", size, idx, ok)
		}
		if VerifyValue(v, scratch, 43, size) {
			t.Fatalf("size %d: value of key 42 verifies as key 43's", size)
		}
		other := make([]byte, size)
		FillValue(other, 43)
		if string(other) == string(v) {
			t.Fatalf("size %d: keys 42 and 43 have the same value", size)
		}
		if VerifyValue(v[:size-1], scratch, 42, size) {
			t.Fatalf("size %d: truncated value verifies", size)
		}
		for _, pos := range []int{0, 8, size / 2, size - 1} {
			c := append([]byte(nil), v...)
			c[pos] ^= 1
			if VerifyValue(c, scratch, 42, size) {
				t.Fatalf("size %d: value with byte %d flipped verifies", size, pos)
			}
		}
		// A value of another length claims its index but fails its check.
		if size > MinValueSize {
			if _, ok := DecodeValue(v[:size-1]); ok {
				t.Fatalf("size %d: truncated value passes its check word", size)
			}
		}
	}
	v := make([]byte, 100)
	if n := testing.AllocsPerRun(100, func() { FillValue(v, 7) }); n != 0 {
		t.Errorf("FillValue allocates %v times", n)
	}
}

func TestFillValueRejectsShortBuffer(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "at least 16") {
			t.Fatalf("recover() = %v, want a panic naming the minimum", r)
		}
	}()
	FillValue(make([]byte, MinValueSize-1), 1)
}

func testParams() Params {
	return Params{Entries: 10, ValueSize: 100, GOGC: 10, Verify: 5, GCReads: 100, GCReadTime: time.Second}
}

func TestChildConfigValidate(t *testing.T) {
	ok := ChildConfig{Adapter: "map", Params: testParams()}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(*ChildConfig){
		"adapter":       func(c *ChildConfig) { c.Adapter = "" },
		"file adapter":  func(c *ChildConfig) { c.Adapter = "cdb" },
		"entries":       func(c *ChildConfig) { c.Entries = 0 },
		"entries big":   func(c *ChildConfig) { c.Entries = MaxEntries + 1 },
		"value size":    func(c *ChildConfig) { c.ValueSize = MinValueSize - 1 },
		"value big":     func(c *ChildConfig) { c.ValueSize = MaxValueSize + 1 },
		"GOGC":          func(c *ChildConfig) { c.GOGC = -2 },
		"GOGC 0":        func(c *ChildConfig) { c.GOGC = 0 },
		"verify":        func(c *ChildConfig) { c.Verify = -1 },
		"gc reads":      func(c *ChildConfig) { c.GCReads = 0 },
		"gc read time":  func(c *ChildConfig) { c.GCReadTime = 0 },
		"gc read hours": func(c *ChildConfig) { c.GCReadTime = 2 * MaxGCReadTime },
		"repetition":    func(c *ChildConfig) { c.Repetition = -1 },
	}
	for name, mutate := range bad {
		c := ok
		mutate(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: invalid config accepted: %+v", name, c)
		}
	}
}

func TestConfigValidateNamesFlags(t *testing.T) {
	ok := Config{Params: testParams(), Adapters: []string{"map"}, Count: 1}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(*Config){
		"--entries":    func(c *Config) { c.Entries = -3 },
		"--value-size": func(c *Config) { c.ValueSize = 15 },
		"--gogc":       func(c *Config) { c.GOGC = 0 },
		"--count":      func(c *Config) { c.Count = 0 },
		"--adapters":   func(c *Config) { c.Adapters = []string{"map", "nosuch"} },
		"--gc-reads":   func(c *Config) { c.GCReads = -1 },
	}
	for flag, mutate := range bad {
		c := ok
		mutate(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("%s: error %v does not name the flag", flag, err)
		}
	}
}

func TestResolveAdapters(t *testing.T) {
	all, err := ResolveAdapters("")
	if err != nil || len(all) < 3 {
		t.Fatalf("default: %v, %v", all, err)
	}
	for _, n := range all {
		if strings.HasPrefix(n, "gcpause-test") {
			t.Fatalf("default includes test adapter %s", n)
		}
	}
	if got, err := ResolveAdapters(" map, fastcache,map "); err != nil || strings.Join(got, ",") != "map,fastcache" {
		t.Fatalf("list: %v, %v", got, err)
	}
	for list, want := range map[string]string{"nosuch": `unknown adapter "nosuch"`, "cdb": "in-memory", ",": "item 1 is empty"} {
		if _, err := ResolveAdapters(list); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", list, err, want)
		}
	}
}
