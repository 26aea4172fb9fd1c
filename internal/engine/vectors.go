package engine

// Float64sStore is implemented by adapters that hold float64 vectors, the
// values of the read-vector workload (a service reading a feature vector
// and using it). Each such adapter keeps a vector in one representation,
// which its Config states: as float64s read in place, or as text parsed
// on every read. The comparison is only honest if each pays its
// representation's real cost on every call, so:
//
//   - a text store parses the stored text in GetFloat64s, every time; it
//     never keeps a decoded copy beside the text;
//   - a typed store returns its own memory (a slice over a file mapping,
//     or the slice a map holds) without copying or decoding it.
//
// An adapter that can hold nothing but vectors returns an error wrapping
// errors.ErrUnsupported from Set and Get.
type Float64sStore interface {
	// SetFloat64s stores xs under key. The adapter copies what it keeps:
	// the caller may reuse key and xs.
	SetFloat64s(key []byte, xs []float64) error
	// GetFloat64s returns the vector stored under key and whether it was
	// found. dst is scratch space with room for the vector: a store that
	// decodes appends the elements to dst[:0] and returns that; a store
	// that reads in place returns its own memory instead. Either way the
	// result holds exactly the vector, is read-only, and is valid until
	// the next call with the same dst or until Close. A value that is not
	// a vector of floats (bytes given to Set, text that does not parse)
	// is an error naming the key, never a reinterpretation of its bytes.
	GetFloat64s(dst []float64, key []byte) ([]float64, bool, error)
}
