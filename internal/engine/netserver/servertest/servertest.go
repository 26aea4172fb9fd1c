// Package servertest holds the test helper shared by the packages whose
// tests run real memcached and Redis servers.
package servertest

import (
	"os"
	"testing"

	"github.com/cachebench/cachebench/internal/engine/netserver"
)

// Require skips t when one of binaries is not on PATH, except in CI
// (CI=true), where a missing server is a broken setup and fails the test.
func Require(t testing.TB, binaries ...string) {
	t.Helper()
	for _, b := range binaries {
		if _, err := netserver.LookBinary(b); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI=true and %v", err)
			}
			t.Skipf("%v", err)
		}
	}
}
