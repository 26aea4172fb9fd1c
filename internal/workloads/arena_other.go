//go:build !linux

package workloads

// allocArena returns n zeroed bytes. Off Linux it is a plain heap slice:
// its placement is the Go heap's, and huge pages are the platform's choice.
func allocArena(n int) ([]byte, error) { return make([]byte, n), nil }
