// Package adapters registers every cache and store cachebench can drive.
// Each adapter lives in one short file named after the library and
// registers itself with engine.Register in an init function; importing
// this package (blank import) makes them all available.
package adapters
