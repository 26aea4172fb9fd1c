// Package crosscheck holds the bare-loop cross-check of cachebench's
// runner: a Go benchmark (bare_test.go) that looks the same pre-generated
// data up in map, fastcache, shardcache and mmapstore with the plainest
// loop there is, calling each library directly, the keys of the lookup
// stream in access order, every value copied out. scripts/crosscheck.sh
// runs it and `cachebench run` back to back and prints the two side by
// side: the runner's lookup figures should agree with the bare loop's
// within about 10% (its harness floor) and rank the adapters the same.
//
// The package has no code of its own beyond this comment.
package crosscheck
