package gcpause

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// ProcStatusPath is where the kernel publishes the process's memory
// figures. Off Linux it does not exist and the RSS figures are left 0.
const ProcStatusPath = "/proc/self/status"

// ParseProcStatus returns the value of field (e.g. "VmHWM", "VmRSS") in
// bytes from the text of /proc/<pid>/status, whose lines read
// "VmHWM:\t   12345 kB". The kernel always writes kB (KiB).
func ParseProcStatus(r io.Reader, field string) (uint64, error) {
	sc := bufio.NewScanner(r)
	prefix := field + ":"
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), prefix)
		if !ok {
			continue
		}
		parts := strings.Fields(rest)
		if len(parts) != 2 || parts[1] != "kB" {
			return 0, fmt.Errorf("%s: unexpected format %q", field, sc.Text())
		}
		kb, err := strconv.ParseUint(parts[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", field, err)
		}
		if kb > (1<<64-1)/1024 {
			return 0, fmt.Errorf("%s: %d kB overflows", field, kb)
		}
		return kb * 1024, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read %s: %w", field, err)
	}
	return 0, fmt.Errorf("%s not found", field)
}

// ReadProcStatus reads one field of ProcStatusPath in bytes.
func ReadProcStatus(field string) (uint64, error) {
	f, err := os.Open(ProcStatusPath)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", ProcStatusPath, err)
	}
	defer f.Close()
	v, err := ParseProcStatus(f, field)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", ProcStatusPath, err)
	}
	return v, nil
}

// PeakRSS returns the process's peak resident set size: VmHWM, or VmRSS
// when that is larger. The kernel folds per-thread RSS counters into the
// process totals lazily, so VmHWM can lag a few pages behind the current
// VmRSS right after memory was touched.
func PeakRSS() (uint64, error) {
	hwm, err := ReadProcStatus("VmHWM")
	if err != nil {
		return 0, err
	}
	rss, err := ReadProcStatus("VmRSS")
	if err != nil {
		return 0, err
	}
	return max(hwm, rss), nil
}
