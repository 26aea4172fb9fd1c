package gcpause

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// The parent/child protocol, all of it in this package:
//
//   - Measure starts os.Executable() with ChildEnv set to the child's
//     ChildConfig as JSON. The command line (childArg, the adapter, the
//     repetition) only names the child in process listings: the program's
//     main calls ServeChild before parsing any argument.
//   - The child writes progress lines ("cachebench-progress: PHASE DONE
//     TOTAL", see ProgressPrefix) and log lines on stderr, and its
//     ChildOutput as one JSON object on stdout.
//   - Its exit status is 0 with a result, 2 for a configuration it cannot
//     read, 1 for a failed measurement.

// ChildEnv is the environment variable that makes a process a gc-pause
// child: it holds the ChildConfig as JSON.
const ChildEnv = "CACHEBENCH_GCPAUSE_CHILD"

// childArg is the first argument of a child, for process listings only.
const childArg = "gc-pause-child"

// childCommand is the command that runs cc in a fresh copy of exe.
func childCommand(ctx context.Context, exe string, cc ChildConfig) (*exec.Cmd, error) {
	js, err := json.Marshal(cc)
	if err != nil {
		return nil, fmt.Errorf("encode child configuration: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, childArg, cc.Adapter, "repetition="+strconv.Itoa(cc.Repetition))
	cmd.Env = append(os.Environ(), ChildEnv+"="+string(js))
	return cmd, nil
}

// readChildConfig decodes the ChildConfig a parent put in ChildEnv; ok is
// false when this process is not a child.
func readChildConfig() (cc ChildConfig, ok bool, err error) {
	v, ok := os.LookupEnv(ChildEnv)
	if !ok {
		return cc, false, nil
	}
	dec := json.NewDecoder(strings.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cc); err != nil {
		return cc, true, fmt.Errorf("gcpause: %s is not a child configuration: %w", ChildEnv, err)
	}
	if err := cc.Validate(); err != nil {
		return cc, true, fmt.Errorf("gcpause: child configuration in %s: %w", ChildEnv, err)
	}
	return cc, true, nil
}

// ServeChild is the child's entry point. When this process was started by
// Measure (ChildEnv is set), it measures the adapter the parent named,
// writes the result to stdout and returns the exit code with isChild
// true; otherwise it does nothing and returns isChild false. The program's
// main (and a test binary's TestMain) calls it first.
func ServeChild(ctx context.Context, stdout, stderr io.Writer) (code int, isChild bool) {
	cc, isChild, err := readChildConfig()
	if !isChild {
		return 0, false
	}
	if err != nil {
		fmt.Fprintln(stderr, "cachebench:", err)
		return 2, true
	}
	out, err := MeasureAdapter(ctx, cc, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "cachebench:", err)
		return 1, true
	}
	if err := json.NewEncoder(stdout).Encode(out); err != nil {
		fmt.Fprintf(stderr, "cachebench: write child result: %v\n", err)
		return 1, true
	}
	return 0, true
}
