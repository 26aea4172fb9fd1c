package mmapstore_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/cachebench/cachebench/mmapstore"
)

func ExampleBuild() {
	dir, err := os.MkdirTemp("", "mmapstore-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "capitals.cache")

	pairs := [][2]string{{"France", "Paris"}, {"Japan", "Tokyo"}, {"Peru", "Lima"}}
	seq := func(yield func(k, v []byte) bool) {
		for _, p := range pairs {
			if !yield([]byte(p[0]), []byte(p[1])) {
				return
			}
		}
	}
	if _, err := mmapstore.Build(path, seq, mmapstore.BuildOptions{}); err != nil {
		log.Fatal(err)
	}

	s, err := mmapstore.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if err := s.Verify(); err != nil {
		log.Fatal(err)
	}
	v, found := s.Get([]byte("Japan")) // a slice of the mapping: no copy
	fmt.Printf("%s %v %d\n", v, found, s.Len())
	// Output: Tokyo true 3
}

func ExampleCreate() {
	dir, err := os.MkdirTemp("", "mmapstore-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "n.cache")

	b, err := mmapstore.Create(path, mmapstore.BuildOptions{Duplicates: mmapstore.DupLastWins})
	if err != nil {
		log.Fatal(err)
	}
	for _, kv := range [][2]string{{"a", "1"}, {"b", "2"}, {"a", "3"}} {
		if err := b.Add([]byte(kv[0]), []byte(kv[1])); err != nil {
			b.Abort()
			log.Fatal(err)
		}
	}
	if _, err := b.Finish(); err != nil {
		log.Fatal(err)
	}

	h, err := mmapstore.NewHolder(path)
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	v, found, err := h.GetAppend(nil, []byte("a"))
	fmt.Printf("%s %v %v\n", v, found, err)
	// Output: 3 true <nil>
}

// Typed values come back as they were built: a []float64 is a slice over
// the mapping (no parsing, no copy on little-endian hosts), and asking for
// another type is an error, never a reinterpretation of the bytes.
func ExampleBuilder_AddValue() {
	dir, err := os.MkdirTemp("", "mmapstore-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "features.cache")

	b, err := mmapstore.Create(path, mmapstore.BuildOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for key, x := range map[string]any{"weights": []float64{0.5, 1, -2.25}, "age": int64(36)} {
		v, err := mmapstore.ValueOf(x)
		if err == nil {
			err = b.AddValue([]byte(key), v)
		}
		if err != nil {
			b.Abort()
			log.Fatal(err)
		}
	}
	if _, err := b.Finish(); err != nil {
		log.Fatal(err)
	}

	s, err := mmapstore.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ws, _, _ := s.GetFloat64s([]byte("weights"))
	age, _, _ := s.GetInt64([]byte("age"))
	_, _, err = s.GetInt64([]byte("weights"))
	fmt.Println(ws, age, errors.Is(err, mmapstore.ErrType))
	// Output: [0.5 1 -2.25] 36 true
}
