//go:build !(cgo && lmdb)

package adapters

import "github.com/cachebench/cachebench/internal/engine"

// LMDB is C code built through cgo. The bmatsuo/lmdb-go package compiles
// it with warnings (mdb.c: "this statement may fall through") that cgo
// prints on every fresh build, and a module cannot pass -w to another
// module's C compilation (#cgo CFLAGS apply to the package declaring them;
// CGO_CFLAGS is the user's environment). So the default build is pure Go
// and needs no C compiler, and lmdb is opt-in: -tags lmdb.
func init() {
	engine.RegisterAbsent("lmdb",
		"LMDB is C code; build with `go install -tags lmdb ./cmd/cachebench` (needs cgo and a C compiler)")
}
