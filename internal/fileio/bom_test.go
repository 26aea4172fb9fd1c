package fileio

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestSkipBOM(t *testing.T) {
	for in, want := range map[string]string{
		"\ufeffkey\n": "key\n", "key\n": "key\n", "\ufeff": "", "": "", "ab": "ab",
		"\xef\xbb": "\xef\xbb", "\ufeff\ufeffk": "\ufeffk",
	} {
		// One byte a time: the BOM is found across short reads.
		got, err := io.ReadAll(SkipBOM(iotest.OneByteReader(strings.NewReader(in))))
		if err != nil || string(got) != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	// A read error before three bytes is returned after what was read.
	boom := errors.New("boom")
	got, err := io.ReadAll(SkipBOM(io.MultiReader(strings.NewReader("a"), iotest.ErrReader(boom))))
	if !errors.Is(err, boom) || string(got) != "a" {
		t.Fatalf("%q %v", got, err)
	}
}
