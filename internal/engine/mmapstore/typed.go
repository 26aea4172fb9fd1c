package mmapstore

import "fmt"

// Typed getters. Each looks key up as Lookup does and returns its value
// as the asked type: found is false (and err nil) for a missing key; a
// value of another type is an error matching ErrType (a *TypeError
// wrapped with the key and path), never its bytes reinterpreted. Scalars
// and numeric lists are read without allocating; numeric lists are
// slices over the mapping on little-endian hosts (read-only, valid until
// Close). They are unchecked lookups, like Get: LookupChecked is the
// checked one.

// GetInt64 returns the TypeInt64 value of key.
func (s *Store) GetInt64(key []byte) (x int64, found bool, err error) {
	v, ok := s.Lookup(key)
	if !ok {
		return 0, false, nil
	}
	x, err = v.Int64()
	return x, true, s.typedErr(key, err)
}

// GetFloat64 returns the TypeFloat64 value of key.
func (s *Store) GetFloat64(key []byte) (x float64, found bool, err error) {
	v, ok := s.Lookup(key)
	if !ok {
		return 0, false, nil
	}
	x, err = v.Float64()
	return x, true, s.typedErr(key, err)
}

// GetBool returns the TypeBool value of key.
func (s *Store) GetBool(key []byte) (x bool, found bool, err error) {
	v, ok := s.Lookup(key)
	if !ok {
		return false, false, nil
	}
	x, err = v.Bool()
	return x, true, s.typedErr(key, err)
}

// GetString returns the TypeString value of key as a new Go string;
// Lookup and Value.Text give its bytes without a copy.
func (s *Store) GetString(key []byte) (x string, found bool, err error) {
	v, ok := s.Lookup(key)
	if !ok {
		return "", false, nil
	}
	b, err := v.Text()
	return string(b), true, s.typedErr(key, err)
}

// GetInt64s returns the TypeInt64s value of key (see Value.Int64s).
func (s *Store) GetInt64s(key []byte) (xs []int64, found bool, err error) {
	v, ok := s.Lookup(key)
	if !ok {
		return nil, false, nil
	}
	xs, err = v.Int64s()
	return xs, true, s.typedErr(key, err)
}

// GetFloat64s returns the TypeFloat64s value of key (see Value.Float64s).
func (s *Store) GetFloat64s(key []byte) (xs []float64, found bool, err error) {
	v, ok := s.Lookup(key)
	if !ok {
		return nil, false, nil
	}
	xs, err = v.Float64s()
	return xs, true, s.typedErr(key, err)
}

// GetStrings returns the TypeStrings value of key as new Go strings.
func (s *Store) GetStrings(key []byte) (xs []string, found bool, err error) {
	v, ok := s.Lookup(key)
	if !ok {
		return nil, false, nil
	}
	xs, err = v.Strings()
	return xs, true, s.typedErr(key, err)
}

// typedErr names the key and the file in a typed getter's error; it
// allocates only when there is one.
func (s *Store) typedErr(key []byte, err error) error {
	if err == nil {
		return nil
	}
	// string() copies: key itself must not escape (see Store.hash).
	return fmt.Errorf("mmapstore: get %q from %s: %w", string(clip(key)), s.path, err)
}
