// Package fit refuses work that cannot fit before it starts: a command
// estimates the disk and memory its parameters need (Need) and Check
// compares them with what the machine has, the free space of the output's
// file system (statfs) and the memory the process may use (the smaller of
// MemAvailable in /proc/meminfo and GOMEMLIMIT). A refusal is a
// *TooBigError carrying the estimate and the limit, so that the user sees
// both instead of a full disk or Go's "fatal error: runtime: out of
// memory" an hour later.
//
// Estimates are meant to be close, not pessimistic: each command's comment
// says what it counts. A command offers --force to run anyway.
package fit

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
)

// Need is what a command's parameters need.
type Need struct {
	// What names the work ("trace gen", "build --synthetic 1100000000").
	What string
	// Disk is the bytes written on the file system of Dir; Dir is where
	// the output goes (its directory).
	Disk int64
	Dir  string
	// DiskDetail says how Disk was estimated ("24 B × 1e12 requests").
	DiskDetail string
	// Memory is the peak bytes of memory the work holds at once.
	Memory int64
	// MemoryDetail says how Memory was estimated.
	MemoryDetail string
}

// TooBigError is a refusal: Resource ("disk" or "memory") needs Estimate
// bytes where Limit bytes are available (LimitSource says which limit).
type TooBigError struct {
	What, Resource  string
	Estimate, Limit int64
	Detail          string
	LimitSource     string
}

func (e *TooBigError) Error() string {
	detail := ""
	if e.Detail != "" {
		detail = " (" + e.Detail + ")"
	}
	return fmt.Sprintf("%s needs about %s of %s%s, but only %s is available (%s)",
		e.What, FormatBytes(e.Estimate), e.Resource, detail, FormatBytes(e.Limit), e.LimitSource)
}

// Limits are what a machine offers; Check reads them through Current
// unless a test gives its own.
type Limits struct {
	// FreeDisk is the space left on Dir's file system; DiskKnown is false
	// where it cannot be told (then disk is not checked).
	FreeDisk  int64
	DiskKnown bool
	// Memory is the memory the process may use; MemorySource says which
	// limit it is; MemoryKnown is false where neither can be read.
	Memory       int64
	MemorySource string
	MemoryKnown  bool
}

// Current reads the limits for output directory dir.
func Current(dir string) Limits {
	var l Limits
	if dir != "" {
		l.FreeDisk, l.DiskKnown = freeDisk(dir)
	}
	l.Memory, l.MemorySource, l.MemoryKnown = memoryLimit()
	return l
}

// Check refuses n when it does not fit the current limits.
func Check(n Need) error { return n.CheckAgainst(Current(n.Dir)) }

// CheckAgainst refuses n when it does not fit l.
func (n Need) CheckAgainst(l Limits) error {
	if l.DiskKnown && n.Disk > l.FreeDisk {
		return &TooBigError{What: n.What, Resource: "disk", Estimate: n.Disk, Limit: l.FreeDisk, Detail: n.DiskDetail,
			LimitSource: "free on the file system of " + n.Dir}
	}
	if l.MemoryKnown && n.Memory > l.Memory {
		return &TooBigError{What: n.What, Resource: "memory", Estimate: n.Memory, Limit: l.Memory, Detail: n.MemoryDetail,
			LimitSource: l.MemorySource}
	}
	return nil
}

// Mul multiplies sizes, saturating at math.MaxInt64 instead of wrapping:
// estimates of absurd parameters must stay absurd.
func Mul(a int64, bs ...int64) int64 {
	v := a
	for _, b := range bs {
		if v == 0 || b == 0 {
			return 0
		}
		if v < 0 || b < 0 || v > math.MaxInt64/b {
			return math.MaxInt64
		}
		v *= b
	}
	return v
}

// Add adds sizes, saturating at math.MaxInt64.
func Add(vs ...int64) int64 {
	var s int64
	for _, v := range vs {
		if v > math.MaxInt64-s {
			return math.MaxInt64
		}
		s += v
	}
	return s
}

// memoryLimit is the smaller of MemAvailable and GOMEMLIMIT (when set).
func memoryLimit() (int64, string, bool) {
	avail, okAvail := memAvailable()
	limit := debug.SetMemoryLimit(-1) // reads without changing it
	switch {
	case okAvail && (limit == math.MaxInt64 || avail <= limit):
		return avail, "MemAvailable in /proc/meminfo", true
	case limit != math.MaxInt64:
		return limit, "GOMEMLIMIT", true
	}
	return 0, "", false
}

// memAvailable reads MemAvailable from /proc/meminfo (Linux).
func memAvailable() (int64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	return parseMemAvailable(b)
}

func parseMemAvailable(b []byte) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "MemAvailable:" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil || kb < 0 {
				return 0, false
			}
			return Mul(kb, 1024), true
		}
	}
	return 0, false
}

// FormatBytes prints a size with a binary unit ("1.5 GiB").
func FormatBytes(n int64) string {
	if n == math.MaxInt64 {
		return "more than 8 EiB"
	}
	v := float64(n)
	for _, u := range []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"} {
		if v < 1024 || u == "PiB" {
			if u == "B" {
				return strconv.FormatInt(n, 10) + " B"
			}
			return strconv.FormatFloat(v, 'f', 1, 64) + " " + u
		}
		v /= 1024
	}
	return ""
}
