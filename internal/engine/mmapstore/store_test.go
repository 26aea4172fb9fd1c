package mmapstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mixed returns pairs of awkward shapes: empty key and value, keys and
// values long enough for multi-byte length varints, odd lengths, binary.
func mixed() (keys, vals [][]byte) {
	add := func(k, v []byte) { keys, vals = append(keys, k), append(vals, v) }
	add([]byte{}, []byte("empty key"))
	add([]byte("empty value"), []byte{})
	add(bytes.Repeat([]byte("k"), 200), bytes.Repeat([]byte("v"), 70000))
	add([]byte{0, 0x80, 0xff}, []byte{0x81, 0x00})
	for i := range 5000 {
		add(fmt.Appendf(nil, "key_%d", i), bytes.Repeat(fmt.Appendf(nil, "%d,", i), i%40))
		if i%10 == 0 {
			add(fmt.Appendf(nil, "shared_%d", i), []byte("a value many keys share, too long to sit in a bucket"))
		}
	}
	return keys, vals
}

func pairs(keys, vals [][]byte) func(func([]byte, []byte) bool) {
	return func(yield func([]byte, []byte) bool) {
		for i := range keys {
			if !yield(keys[i], vals[i]) {
				return
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, dedup := range []bool{false, true} {
		t.Run(fmt.Sprintf("dedup=%v", dedup), func(t *testing.T) {
			dir := t.TempDir()
			keys, vals := mixed()
			p := build(t, dir, "f.cache", pairs(keys, vals), BuildOptions{Dedup: dedup})
			noTemps(t, dir)
			s := mustOpen(t, p)
			if s.Len() != len(keys) {
				t.Fatalf("Len = %d, want %d", s.Len(), len(keys))
			}
			for i, k := range keys {
				v, ok := s.Get(k)
				if !ok || !bytes.Equal(v, vals[i]) {
					t.Fatalf("Get(%q) = %q, %v; want %q", k, v, ok, vals[i])
				}
				dst, ok := s.GetAppend([]byte("x"), k)
				if !ok || !bytes.Equal(dst, append([]byte("x"), vals[i]...)) {
					t.Fatalf("GetAppend(%q) = %q, %v", k, dst, ok)
				}
			}
			for _, k := range []string{"key_5000", "nope", "key_", "k"} {
				if v, ok := s.Get([]byte(k)); ok {
					t.Fatalf("Get(%q) = %q, want miss", k, v)
				}
			}
			// GetBatch agrees with Get, hits and misses interleaved.
			var batch [][]byte
			for i := range 300 {
				batch = append(batch, keys[(i*97)%len(keys)], fmt.Appendf(nil, "miss_%d", i))
			}
			calls := 0
			s.GetBatch(batch, func(i int, v []byte, ok bool) {
				if i != calls {
					t.Fatalf("GetBatch called fn(%d) after %d calls", i, calls)
				}
				calls++
				want, wok := s.Get(batch[i])
				if ok != wok || !bytes.Equal(v, want) {
					t.Fatalf("GetBatch(%q) = %q, %v; Get = %q, %v", batch[i], v, ok, want, wok)
				}
			})
			if calls != len(batch) {
				t.Fatalf("GetBatch made %d calls, want %d", calls, len(batch))
			}
			if err := s.Verify(); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			st, err := s.Inspect()
			if err != nil {
				t.Fatalf("Inspect: %v", err)
			}
			// Records of more than DefaultInlineMax bytes, and only those,
			// go to the records section.
			var big uint64
			for i := range keys {
				if n := inlineSize(len(keys[i]), len(vals[i]), TypeBytes); n == 0 || n > DefaultInlineMax {
					big++
				}
			}
			if st.OutOfLine != big || st.Inline+st.OutOfLine != st.Entries || st.Records != big {
				t.Fatalf("Inspect: %d inline, %d out of line (want %d), %d records", st.Inline, st.OutOfLine, big, st.Records)
			}
			if st.Entries != uint64(len(keys)) || st.DeadRecords != 0 {
				t.Fatalf("Inspect: entries %d records %d dead %d", st.Entries, st.Records, st.DeadRecords)
			}
			if st.LoadFactor <= 0 || st.LoadFactor > DefaultBucketFill {
				t.Fatalf("load factor %v", st.LoadFactor)
			}
			if keys, err := s.Keys(len(keys) + 1); err != nil || uint64(len(keys)) != st.Entries {
				t.Fatalf("Keys: %d keys, %v", len(keys), err)
			}
			if err := s.CheckSample(64); err != nil {
				t.Fatalf("CheckSample: %v", err)
			}
			for i, k := range keys {
				if v, ok, err := s.GetChecked(k); err != nil || !ok || !bytes.Equal(v, vals[i]) {
					t.Fatalf("GetChecked(%q) = %q, %v, %v", k, v, ok, err)
				}
			}
			var probes uint64
			for _, c := range st.ProbeLengths {
				probes += c
			}
			if probes != st.Entries {
				t.Fatalf("probe histogram counts %d keys, want %d", probes, st.Entries)
			}
			if dedup != (st.DedupRefs > 0) {
				t.Fatalf("dedup=%v but %d references", dedup, st.DedupRefs)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if _, ok := s.Get(keys[5]); ok {
				t.Fatal("Get after Close found a key")
			}
			if err := s.Verify(); !errors.Is(err, ErrClosed) {
				t.Fatalf("Verify after Close = %v", err)
			}
		})
	}
}

func TestEmptyStore(t *testing.T) {
	p := build(t, t.TempDir(), "e.cache", kv(0), BuildOptions{})
	s := mustOpen(t, p)
	if _, ok := s.Get([]byte("x")); ok {
		t.Fatal("hit in an empty store")
	}
	s.GetBatch([][]byte{[]byte("a")}, func(int, []byte, bool) {})
	if err := s.Verify(); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckSample(64); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.GetChecked([]byte("x")); ok || err != nil {
		t.Fatalf("GetChecked: %v, %v", ok, err)
	}
}

func TestDedupSaves(t *testing.T) {
	dir := t.TempDir()
	long := bytes.Repeat([]byte("same value "), 10)
	seq := func(yield func([]byte, []byte) bool) {
		for i := range 1000 {
			if !yield(fmt.Appendf(nil, "k%d", i), long) {
				return
			}
		}
	}
	plain := build(t, dir, "plain", seq, BuildOptions{Seed: 1})
	dd := build(t, dir, "dedup", seq, BuildOptions{Seed: 1, Dedup: true})
	a := mustOpen(t, plain).Header()
	s := mustOpen(t, dd)
	b := s.Header()
	st, err := s.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	if st.DedupRefs != 999 || a.RecordsLength-b.RecordsLength != st.DedupSavedBytes {
		t.Fatalf("refs %d, saved %d bytes; records sections differ by %d", st.DedupRefs, st.DedupSavedBytes, a.RecordsLength-b.RecordsLength)
	}
	for i := range 1000 {
		if v, ok := s.Get(fmt.Appendf(nil, "k%d", i)); !ok || !bytes.Equal(v, long) {
			t.Fatalf("k%d = %q, %v", i, v, ok)
		}
	}
}

func TestDuplicateKeys(t *testing.T) {
	dir := t.TempDir()
	long := bytes.Repeat([]byte("a"), 100) // out of line: a dead record remains
	seq := func(yield func([]byte, []byte) bool) {
		_ = yield([]byte("a"), long) && yield([]byte("b"), []byte("2")) && yield([]byte("a"), []byte("3")) && yield([]byte("b"), []byte("4"))
	}
	p := filepath.Join(dir, "d.cache")
	_, err := Build(p, seq, BuildOptions{})
	var de *DuplicateKeyError
	if !errors.Is(err, ErrDuplicateKey) || !errors.As(err, &de) || de.First != 0 || de.Second != 2 || string(de.Key) != "a" {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("failed build left %s: %v", p, err)
	}
	noTemps(t, dir)

	res, err := Build(p, seq, BuildOptions{Duplicates: DupLastWins})
	if err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, p)
	if v, ok := s.Get([]byte("a")); !ok || string(v) != "3" {
		t.Fatalf("last wins: a = %q, %v", v, ok)
	}
	var all []string
	for k, v := range s.All() {
		v := v.Bytes()
		all = append(all, string(k)+"="+string(v))
	}
	want := "[a=3 b=4]" // the live entries in bucket order
	if all[0] == "b=4" {
		want = "[b=4 a=3]"
	}
	if fmt.Sprint(all) != want {
		t.Fatalf("All = %v, want %s", all, want)
	}
	h := s.Header()
	// One record, the long value; the others are inline, the shadowed
	// ones dropped.
	if h.Entries != 2 || h.Records != 1 || res.Shadowed != 2 {
		t.Fatalf("entries %d records %d shadowed %d", h.Entries, h.Records, res.Shadowed)
	}
	if st, err := s.Inspect(); err != nil || st.DeadRecords != 1 {
		t.Fatalf("Inspect: %d dead records, %v", st.DeadRecords, err)
	}
	if err := s.Verify(); err != nil {
		t.Fatal(err)
	}
}

func TestCollidingHashes(t *testing.T) {
	for _, c := range []struct {
		id       uint16
		maxProbe uint64 // 300 keys, at most 8 per bucket
		limit    int    // a probe limit some key exceeds ...
		over     string // ... the first such key
	}{
		{hashTestConst, 48, 10, "\"key_72\""},
		{hashTestHome0, 48, 10, "\"key_72\""},
	} {
		id := c.id
		t.Run(fmt.Sprintf("%#x", id), func(t *testing.T) {
			dir := t.TempDir()
			p := build(t, dir, "c.cache", kv(300), BuildOptions{hashID: id})
			s := mustOpen(t, p)
			if h := s.Header(); h.MaxProbe != c.maxProbe {
				t.Fatalf("max probe %d, want %d", h.MaxProbe, c.maxProbe)
			}
			for i := range 300 {
				v, ok := s.Get(fmt.Appendf(nil, "key_%d", i))
				if !ok || string(v) != fmt.Sprintf("val_%d", i) {
					t.Fatalf("key_%d = %q, %v", i, v, ok)
				}
			}
			if _, ok := s.Get([]byte("key_300")); ok {
				t.Fatal("miss found")
			}
			if err := s.Verify(); err != nil {
				t.Fatal(err)
			}
			// Duplicates are still told apart from colliding keys.
			dup := func(yield func([]byte, []byte) bool) {
				for k, v := range kv(50) {
					if !yield(k, v) {
						return
					}
				}
				yield([]byte("key_7"), []byte("again"))
			}
			if _, err := Build(filepath.Join(dir, "dup"), dup, BuildOptions{hashID: id}); !errors.Is(err, ErrDuplicateKey) {
				t.Fatalf("duplicate among colliding keys: %v", err)
			}
			// Over the probe limit: a clear error, the old file intact.
			old, _ := os.ReadFile(p)
			_, err := Build(p, kv(300), BuildOptions{hashID: id, MaxProbe: c.limit})
			if !errors.Is(err, ErrProbeLimit) || !strings.Contains(err.Error(), c.over) {
				t.Fatalf("err = %v", err)
			}
			if now, _ := os.ReadFile(p); !bytes.Equal(now, old) {
				t.Fatal("failed build changed the destination")
			}
			noTemps(t, dir)
		})
	}
}

func TestFailedBuildKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	p := build(t, dir, "f.cache", kv(1000), BuildOptions{})
	old, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string) {
		t.Helper()
		if now, _ := os.ReadFile(p); !bytes.Equal(now, old) {
			t.Fatalf("%s: destination changed", what)
		}
		noTemps(t, dir)
		if err := mustOpen(t, p).Verify(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// Aborted midway, with more than one write buffer already on disk.
	b, err := Create(p, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 4096)
	for i := range 600 {
		if err := b.Add(fmt.Appendf(nil, "n%d", i), big); err != nil {
			t.Fatal(err)
		}
	}
	b.Abort()
	if err := b.Add([]byte("late"), nil); err == nil {
		t.Fatal("Add after Abort succeeded")
	}
	if _, err := b.Finish(); err == nil {
		t.Fatal("Finish after Abort succeeded")
	}
	check("abort")
	// Failing at Finish (duplicate key).
	seq := func(yield func([]byte, []byte) bool) {
		for k, v := range kv(2000) {
			if !yield(k, v) {
				return
			}
		}
		yield([]byte("key_3"), nil)
	}
	if _, err := Build(p, seq, BuildOptions{}); !errors.Is(err, ErrDuplicateKey) {
		t.Fatalf("err = %v", err)
	}
	check("duplicate")
	// A destination directory that does not exist.
	if _, err := Create(filepath.Join(dir, "missing", "f"), BuildOptions{}); err == nil {
		t.Fatal("Create in a missing directory succeeded")
	}
}

func TestOpenRejectsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	lmdb := make([]byte, 8192)
	binary.LittleEndian.PutUint32(lmdb[16:], 0xBEEFC0DE) // LMDB meta page magic
	cdb := make([]byte, 2048+16)                         // CDB: 256 (pos,len) pairs, then records
	for i := 0; i < 256; i++ {
		binary.LittleEndian.PutUint32(cdb[i*8:], 2048)
	}
	rnd := make([]byte, 4096)
	for i := range rnd {
		rnd[i] = byte(i*7919 + i>>3)
	}
	for name, data := range map[string][]byte{
		"empty": {}, "text": []byte("key\tvalue\nother\tline\n"), "lmdb": lmdb, "cdb": cdb,
		"random": rnd, "short-magic": magic[:5],
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(p)
		if !errors.Is(err, ErrNotCachebench) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a cachebench file") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := Open(dir); !errors.Is(err, ErrNotCachebench) {
		t.Errorf("directory: err = %v", err)
	}
	if _, err := Open(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestVersionAndChecksumErrors(t *testing.T) {
	p := build(t, t.TempDir(), "v.cache", kv(10), BuildOptions{})
	data, _ := os.ReadFile(p)
	mod := func(f func(b []byte)) error {
		b := bytes.Clone(data)
		f(b)
		q := p + ".mod"
		if err := os.WriteFile(q, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(q)
		if err == nil {
			s.Close()
		}
		return err
	}
	// Earlier versions and later ones are refused with a message that
	// says what to do, checksum or not.
	for _, v := range []uint16{0, 1, 2, 3, Version + 1, 0xffff} {
		err := mod(func(b []byte) { binary.LittleEndian.PutUint16(b[8:], v); fixHeaderChecksum(b) })
		if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "rebuild") || !strings.Contains(err.Error(), fmt.Sprintf("version %d", v)) {
			t.Errorf("version %d: %v", v, err)
		}
	}
	if err := mod(func(b []byte) { b[40] ^= 1 }); !errors.Is(err, ErrChecksum) {
		t.Errorf("header bit flip: %v", err)
	}
	if err := mod(func(b []byte) { b[len(b)-1] ^= 1 }); err != nil {
		t.Errorf("index bit flip must not fail Open (Open reads no section): %v", err)
	}
}

// TestGetBatchAgreesWithGet: over keys of every length from 1 to 24
// (GetBatch resolves those of 8 to 16 bytes on a fast path of its own),
// inline and out-of-line records, and misses that share their home
// bucket and tag with a stored key, GetBatch returns exactly what Get
// returns: the same bytes of the mapping, or a miss. With the hashes
// of the first or the last 8 bytes only, a stored key with its last or
// first byte changed is such a miss, and only the fast path's compare
// of the other word tells it apart.
func TestGetBatchAgreesWithGet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var keys, vals [][]byte
	for i := range 600 {
		k := make([]byte, 1+i%24)
		for j := range k {
			k[j] = byte(rng.Uint32())
		}
		keys = append(keys, k)
		vals = append(vals, bytes.Repeat([]byte{byte(i)}, i%50)) // up to 49 bytes: some out of line
	}
	for _, id := range []uint16{HashCB1, hashTestHead8, hashTestTail8} {
		t.Run(fmt.Sprintf("%#x", id), func(t *testing.T) {
			s := mustOpen(t, build(t, t.TempDir(), "a.cache", pairs(keys, vals), BuildOptions{hashID: id}))
			type home struct {
				b uint64
				t byte
			}
			stored := map[home]bool{}
			for _, k := range keys {
				h := s.hash(k)
				stored[home{homeBucket(h, s.buckets), bucketTag(h)}] = true
			}
			batch := append([][]byte(nil), keys...)
			shared := 0
			for i := range 20000 {
				var k []byte
				switch i % 3 {
				case 0: // a random key
					k = fmt.Appendf(nil, "m%0*d", i%24, i)
				case 1: // a stored key, its last byte changed
					k = bytes.Clone(keys[i%len(keys)])
					k[len(k)-1] ^= 0x40
				case 2: // its first byte changed
					k = bytes.Clone(keys[i%len(keys)])
					k[0] ^= 0x40
				}
				h := s.hash(k)
				if stored[home{homeBucket(h, s.buckets), bucketTag(h)}] {
					shared++
					batch = append(batch, k)
				} else if i%10 == 0 {
					batch = append(batch, k)
				}
			}
			if shared < 20 {
				t.Fatalf("only %d misses share a stored key's bucket and tag", shared)
			}
			for _, n := range []int{1, 3, len(batch)} { // short batches end the pipeline early
				calls := 0
				s.GetBatch(batch[:n], func(i int, v []byte, ok bool) {
					if i != calls {
						t.Fatalf("fn(%d) after %d calls", i, calls)
					}
					calls++
					want, wok := s.Get(batch[i])
					if ok != wok || len(v) != len(want) || (len(v) > 0 && &v[0] != &want[0]) {
						t.Fatalf("GetBatch(%q) = %q, %v; Get = %q, %v", batch[i], v, ok, want, wok)
					}
					if i < len(keys) && (!ok || !bytes.Equal(v, vals[i])) {
						t.Fatalf("GetBatch(%q) = %q, %v; want %q", batch[i], v, ok, vals[i])
					}
				})
				if calls != n {
					t.Fatalf("%d calls for %d keys", calls, n)
				}
			}
		})
	}
}
