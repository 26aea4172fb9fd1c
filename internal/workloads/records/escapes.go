package records

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// checkJSONText refuses JSON text that encoding/json would decode into
// something other than what it says: bytes that are not UTF-8, and
// \uXXXX escapes that are not valid UTF-16 (a lone surrogate, or a high
// surrogate not followed by a low one). The decoder replaces both with
// U+FFFD without a word, so "user\udc00" and "user\udfff" would become
// the same key. It scans the raw text: a backslash only occurs inside a
// JSON string, so every escape is found without parsing the structure;
// text that is not JSON is left to the decoder to refuse. The error
// names the 1-based byte offset.
func checkJSONText(b []byte) error {
	if !utf8.Valid(b) {
		return fmt.Errorf("invalid UTF-8 at byte %d (use key_b64/value_b64 for binary data)", firstInvalid(b)+1)
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if i+1 >= len(b) {
			return nil
		}
		if b[i+1] != 'u' {
			i++ // \" \\ \n ...: the escaped byte is no escape of its own
			continue
		}
		r, ok := hex4(b, i+2)
		if !ok {
			return nil // the decoder says what is wrong
		}
		switch {
		case utf16.IsSurrogate(r) && r >= 0xdc00:
			return fmt.Errorf("invalid UTF-16 escape at byte %d: \\u%04x is a low surrogate without a high one before it", i+1, r)
		case utf16.IsSurrogate(r):
			lo, ok := rune(0), i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u'
			if ok {
				lo, ok = hex4(b, i+8)
			}
			if !ok || lo < 0xdc00 || lo > 0xdfff {
				return fmt.Errorf("invalid UTF-16 escape at byte %d: \\u%04x is a high surrogate without a low one after it", i+1, r)
			}
			i += 11
		default:
			i += 5
		}
	}
	return nil
}

// hex4 reads the four hexadecimal digits of a \u escape at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}
