package workloads

import "context"

// The values of read-vector: key index i holds a vector of VectorLen
// float64s, element j being i + j/4 (records.Synthetic's float64s, so a
// store made with `cachebench build --synthetic N --value-type
// float64s:32` holds the same data). Every partial sum of such a vector
// is a multiple of 1/4 below 2^40, exact in float64, so the sum of key
// i's vector is VectorLen·i + VectorLen(VectorLen−1)/8 exactly, whatever
// the machine: the runner checks each read from the key index alone,
// reading no expected copy. A vector of another key has another sum; a
// check of its length and last element also catches a truncated,
// extended or shifted one. The vectors do not depend on the seed (the
// access order does).
//
// In text (how the text stores keep them) an element is 1 to 12
// characters ("12.25", "999999.75"): short decimals, which strconv
// parses on its fast path. Real feature vectors with 15 to 17
// significant digits parse slower, so the ratio of typed to text reads
// this workload reports errs in the text stores' favour.

// VectorLen is the number of elements of a read-vector value.
const VectorLen = 32

// ReadVectorReference names the adapter read-vector's tables divide every
// adapter's time by, repetition by repetition: the vector kept as text in
// mmapstore and parsed with strconv on every read, the baseline.
const ReadVectorReference = "mmapstore-text"

// ReadVectorAdapters is the adapter group a run of read-vector alone
// measures when the command line names none: the four representations of
// a vector (engine.Float64sStore), and no adapter that would be skipped.
const ReadVectorAdapters = "vectors"

// VectorElem is element j of key index i's vector.
func VectorElem(i uint32, j int) float64 { return float64(i) + float64(j)/4 }

// VectorSum is the exact sum of key index i's vector.
func VectorSum(i uint32) float64 {
	return VectorLen*float64(i) + VectorLen*(VectorLen-1)/8.0
}

// SumVector is the use read-vector makes of a vector: the sum of its
// elements, in order.
func SumVector(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// VectorOK reports whether xs, whose sum (SumVector) is sum, is key index
// i's vector: VectorLen elements, key i's sum and key i's last element.
func VectorOK(xs []float64, sum float64, i uint32) bool {
	return len(xs) == VectorLen && sum == VectorSum(i) && xs[VectorLen-1] == VectorElem(i, VectorLen-1)
}

// Vector returns key index i's vector; the slice aliases the workload's
// arena (read-vector only).
func (w *Workload) Vector(i uint32) []float64 {
	a := int(i) * VectorLen
	return w.vecs[a : a+VectorLen : a+VectorLen]
}

// Vectors returns every key's vector back to back, key i's at
// [i·VectorLen, (i+1)·VectorLen), for loops that index it themselves.
func (w *Workload) Vectors() []float64 { return w.vecs }

// genVectors writes every key's vector into an arena of its own,
// stopping once ctx is cancelled.
func (w *Workload) genVectors(ctx context.Context) error {
	n := w.Spec.Keys
	var err error
	if w.vecs, err = arenaSlice[float64](n * VectorLen); err != nil {
		return err
	}
	for i := range n {
		if err := stopped(ctx, i, "vectors"); err != nil {
			return err
		}
		v := w.vecs[i*VectorLen : (i+1)*VectorLen]
		for j := range v {
			v[j] = VectorElem(uint32(i), j)
		}
	}
	w.ValueBytes = int64(n) * VectorLen * 8
	return nil
}
