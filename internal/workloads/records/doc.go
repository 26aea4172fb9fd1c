// Package records reads key/value pairs for `cachebench build`: TSV,
// CSV and JSON-lines files, and the synthetic key_%d → val_%d data set.
//
// It lives under internal/workloads because an input data set is workload
// data, not part of any store: it depends on no engine, so any file-store
// builder (mmapstore today) or a future workload that loads pairs from a
// file may import it.
package records
