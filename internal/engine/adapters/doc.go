// Package adapters registers every cache and store cachebench can drive.
// Each adapter lives in one short file named after the library and
// registers itself with engine.Register in an init function; importing
// this package (blank import) makes them all available.
//
// Adapters import engine and the engines they wrap; commands and tests
// import this package blank, for its registrations, and nothing else
// should import it.
package adapters
