// The machine's memory limits: what every figure of a run should be read
// against. The latency of one dependent DRAM load is the cost of a cache
// miss a lookup cannot hide; the transparent-huge-page mode decides how
// much of a lookup's cost is TLB misses. The run command measures them
// once per run and stores them in the result's environment.

package machine

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// DefaultRegionBytes is the smallest region of the dependent-load
// measurement, larger than the last-level cache of most machines.
const DefaultRegionBytes = 256 << 20

// MaxRegionBytes bounds the region where the last-level cache reported is
// itself huge (a virtual machine may report the whole socket's), so that
// the measurement stays under a second.
const MaxRegionBytes = 512 << 20

// RegionBytes is the dependent-load region for this machine: twice the
// last-level cache, at least DefaultRegionBytes and at most
// MaxRegionBytes, so that nearly every load misses every cache level.
func RegionBytes() int {
	llc, _ := LLCBytes()
	return min(max(DefaultRegionBytes, 2*llc), MaxRegionBytes)
}

// LLCBytes returns the size of the largest cache of CPU 0 as Linux reports
// it (/sys/devices/system/cpu/cpu0/cache), or an error where it does not.
func LLCBytes() (int, error) {
	dirs, err := filepath.Glob("/sys/devices/system/cpu/cpu0/cache/index*/size")
	if err != nil || len(dirs) == 0 {
		return 0, errors.New("machine: cache sizes not published")
	}
	best := 0
	for _, p := range dirs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if n, err := parseCacheSize(strings.TrimSpace(string(b))); err == nil {
			best = max(best, n)
		}
	}
	if best == 0 {
		return 0, errors.New("machine: no readable cache size")
	}
	return best, nil
}

// parseCacheSize parses sysfs cache sizes such as "32K" or "266240K".
func parseCacheSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("cache size %q", s)
	}
	return n * mult, nil
}

// DefaultLoads is the number of dependent loads timed: enough for a
// stable figure, few enough that even at DRAM latency the probe takes a
// fraction of a second.
const DefaultLoads = 1 << 19

// lineWords is the number of uint64 words in a 64-byte cache line; the
// chase visits one word per line so that no two loads share a line.
const lineWords = 8

// DependentLoadNs returns the mean latency, in ns, of loads that each
// depend on the one before (pointer chasing) through the cache lines of a
// region of regionBytes (rounded down to a power of two), timed over loads
// loads after an untimed warm-up of a quarter as many. Every line is visited once
// per lap in an order no prefetcher follows (see cycle), and the region
// is in huge pages where the kernel grants them, so the figure is one
// DRAM miss: what an index probe that misses every cache costs on this
// machine.
func DependentLoadNs(regionBytes, loads int) (float64, error) {
	lines := 1
	for lines*2 <= regionBytes/(lineWords*8) {
		lines *= 2 // a power of two (see cycle)
	}
	if lines < 2 || loads <= 0 {
		return 0, fmt.Errorf("machine: dependent-load region of %d bytes and %d loads: need at least 2 cache lines and 1 load", regionBytes, loads)
	}
	buf, err := Arena(lines * lineWords * 8)
	if err != nil {
		return 0, err
	}
	defer FreeArena(buf)
	// Huge pages (where the kernel grants them) keep TLB misses out of the
	// figure: it is the DRAM miss alone.
	next := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(buf))), lines*lineWords)
	cycle(next, lines)
	p := chase(next, 0, min(loads/4+1, lines)) // warm the path (the pages are already faulted in)
	start := time.Now()
	p = chase(next, p, loads)
	el := time.Since(start)
	runtime.KeepAlive(p) // keeps the chase from being optimised away
	return float64(el.Nanoseconds()) / float64(loads), nil
}

// cycle writes into next the links of a single cycle through lines cache
// lines (a power of two): next[l·lineWords] is the word index of the line
// after line l, which is l·a + c mod lines. With a ≡ 1 (mod 4) and c odd
// that map is one full cycle (Hull–Dobell), so a chase visits every line
// before it repeats, and the step between successive lines changes every
// time, so no stride prefetcher can follow it. The region is written front
// to back: scattering writes over a region larger than the caches would
// itself cost one DRAM miss per line.
func cycle(next []uint64, lines int) {
	const a, c = 6364136223846793005, 1442695040888963407
	mask := uint64(lines - 1)
	for l := uint64(0); l < uint64(lines); l++ {
		next[l*lineWords] = ((l*a + c) & mask) * lineWords
	}
}

// chase follows n links from p and returns where it stopped.
func chase(next []uint64, p uint64, n int) uint64 {
	for ; n > 0; n-- {
		p = next[p]
	}
	return p
}

// THPPath is where Linux publishes the transparent-huge-page mode.
const THPPath = "/sys/kernel/mm/transparent_hugepage/enabled"

// THPMode returns the transparent-huge-page mode ("always", "madvise" or
// "never"), or an error where the kernel does not say (not Linux, no THP
// support).
func THPMode() (string, error) {
	b, err := os.ReadFile(THPPath)
	if err != nil {
		return "", fmt.Errorf("machine: transparent huge pages: %w", err)
	}
	mode, err := ParseTHPMode(string(b))
	if err != nil {
		return "", fmt.Errorf("machine: %s: %w", THPPath, err)
	}
	return mode, nil
}

// ParseTHPMode returns the selected mode of a THP "enabled" file, the word
// in brackets ("always [madvise] never" → "madvise").
func ParseTHPMode(s string) (string, error) {
	for _, f := range strings.Fields(s) {
		if len(f) > 2 && f[0] == '[' && f[len(f)-1] == ']' {
			return f[1 : len(f)-1], nil
		}
	}
	return "", errors.New("no mode in brackets in " + fmt.Sprintf("%q", strings.TrimSpace(s)))
}

// SmapsRollupPath is where Linux sums the process's memory mappings.
const SmapsRollupPath = "/proc/self/smaps_rollup"

// AnonHugeBytes returns how much of this process's anonymous memory is on
// transparent huge pages (AnonHugePages in /proc/self/smaps_rollup), or
// an error where the kernel does not say. A lookup into memory on 2 MiB
// pages takes fewer TLB misses than into 4 KiB ones, so whether an
// instance's memory got them is part of what its lookup time measured.
// The kernel walks the page tables to answer: milliseconds for gigabytes,
// to be read outside any timed pass.
func AnonHugeBytes() (int64, error) {
	b, err := os.ReadFile(SmapsRollupPath)
	if err != nil {
		return 0, fmt.Errorf("machine: huge pages: %w", err)
	}
	n, err := ParseAnonHuge(string(b))
	if err != nil {
		return 0, fmt.Errorf("machine: %s: %w", SmapsRollupPath, err)
	}
	return n, nil
}

// ParseAnonHuge returns the AnonHugePages field of an smaps or
// smaps_rollup text, in bytes.
func ParseAnonHuge(s string) (int64, error) {
	for line := range strings.Lines(s) {
		rest, ok := strings.CutPrefix(line, "AnonHugePages:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("AnonHugePages line %q: want a number and kB", strings.TrimSpace(line))
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb < 0 || kb > math.MaxInt64>>10 {
			return 0, fmt.Errorf("AnonHugePages line %q: not a size in kB", strings.TrimSpace(line))
		}
		return kb << 10, nil
	}
	return 0, errors.New("no AnonHugePages line")
}
