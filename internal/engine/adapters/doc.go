// Package adapters registers every cache and store cachebench can drive.
// Each adapter lives in one short file named after the library and
// registers itself with engine.Register in an init function; importing
// this package (blank import) makes them all available.
//
// Imports: engine and the engines it wraps (shardcache, mmapstore,
// netserver, prefetch), never workloads or report. Commands and tests
// import this package blank, for its registrations; nothing else does.
package adapters
