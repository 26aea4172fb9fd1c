package main

import (
	"testing"

	"github.com/cachebench/cachebench/cachetest"
)

func TestConformance(t *testing.T) { cachetest.TestAdapter(t, factory) }
