//go:build !linux

package machine

// Arena returns n zeroed bytes. Off Linux it is a plain heap slice:
// its placement is the Go heap's, and huge pages are the platform's choice.
func Arena(n int) ([]byte, error) { return make([]byte, n), nil }

// FreeArena lets the garbage collector have the arena.
func FreeArena([]byte) error { return nil }
