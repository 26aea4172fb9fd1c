package cachetest_test

import (
	"testing"

	"github.com/cachebench/cachebench"
	"github.com/cachebench/cachebench/cachetest"
)

// factory is what the benchmark program registers (see package
// cachebench); its test hands the same value to TestAdapter.
var factory = newFIFO("none")

// The whole conformance test of an adapter, in its package's _test.go file.
func ExampleTestAdapter() {
	_ = func(t *testing.T) { cachetest.TestAdapter(t, factory) }
	_ = cachebench.Register
}
