package adapters

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The one text form of a float64 vector, shared by every store that keeps
// vectors as text (mmapstore-text, map-text), so that each parses the
// same bytes: the elements in the shortest form that parses back to the
// same float64 (strconv 'g', -1: "12.25", "1.5e+07"), separated by
// commas, no spaces; the empty vector is the empty text. It is the shape
// of a CSV or JSON array a service would keep: the common case the
// typed values of mmapstore are measured against (engine.Float64sStore).

// vectorsGroup is the adapter group of the float-vector stores
// (Factory.Group): the read-vector workload runs them, no other suite
// includes them.
const vectorsGroup = "vectors"

// appendFloatsText appends xs to dst in the text form.
func appendFloatsText(dst []byte, xs []float64) []byte {
	for i, x := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendFloat(dst, x, 'g', -1, 64)
	}
	return dst
}

// parseFloatsText appends the elements of text, in the text form, to dst.
// It allocates nothing on success, so a text store is charged for the
// parsing alone. text may view memory that is valid only during the call
// (a file mapping): strconv's error would keep the element, so an error
// holds a copy of it instead.
func parseFloatsText(dst []float64, text string) ([]float64, error) {
	if text == "" {
		return dst, nil
	}
	for n := 0; ; n++ {
		field, rest, more := strings.Cut(text, ",")
		x, err := strconv.ParseFloat(field, 64)
		if err != nil {
			var ne *strconv.NumError
			if errors.As(err, &ne) {
				err = ne.Err
			}
			return dst, fmt.Errorf("element %d %q of a float vector: %w", n, strings.Clone(field), err)
		}
		dst = append(dst, x)
		if !more {
			return dst, nil
		}
		text = rest
	}
}
