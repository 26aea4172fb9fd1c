package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cachebench/cachebench/internal/fit"
	"github.com/cachebench/cachebench/internal/workloads/trace"
)

// MaxTraceValue bounds the value stored for one object of a trace: larger
// objects are stored at this size, as the hit-ratio lab does, so that a
// trace of huge objects cannot make the pre-generated values unbounded.
const MaxTraceValue = 1 << 20

// TraceBytesPerRequest is the memory a trace workload holds per request
// once generated: its 4-byte object index while reading, then the
// stream's 12-byte Op, about 12 bytes of key and an 8-byte value
// reference.
const TraceBytesPerRequest = 36

// traceFits refuses, with a *fit.TooBigError, a trace whose requests
// read so far, doubled as the next growth of the request slice would
// make them, need more than the available memory: a small compressed
// file can hold billions of requests, and the run would end out of
// memory after minutes instead of with a message.
func traceFits(path string, requests, objects int) error {
	lim := fit.Current("")
	need := fit.Mul(int64(requests), 2*TraceBytesPerRequest)
	if !lim.MemoryKnown || need <= lim.Memory {
		return nil
	}
	return &fit.TooBigError{What: "the trace workload of " + path, Resource: "memory", Estimate: need, Limit: lim.Memory,
		LimitSource: lim.MemorySource,
		Detail: fmt.Sprintf("%d B per request, at %d requests of %d objects read so far, the trace not yet at its end",
			TraceBytesPerRequest, requests, objects)}
}

// generateTrace reads the trace of s once, before any clock starts: its
// objects become keys key_0, key_1, ... in order of first request, its
// requests the operation stream, and each object's value has the size of
// its first request, at least the codec's minimum (minSizedValue) and at
// most MaxTraceValue (formats without sizes give every object
// trace.DefaultSize). Memory: a map entry per object while reading, 4
// bytes per request, then the stream (12 bytes of Op, the key bytes and 8
// bytes of value reference per request) and the values.
func generateTrace(ctx context.Context, s Spec) (*Workload, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	src := s.TraceSource
	if src.Format == "" {
		f, err := trace.FormatOf(src.Path)
		if err != nil {
			return nil, err
		}
		src.Format = f
	}
	tf, err := src.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer tf.Close()
	dense := map[uint64]uint32{}
	var sizes []uint32
	var ops []uint32
	var q trace.Request
	for {
		err := tf.Next(&q)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		k, ok := dense[q.ID]
		if !ok {
			if len(sizes) == MaxKeys {
				return nil, fmt.Errorf("%s: more than %d objects", src.Path, MaxKeys)
			}
			k = uint32(len(sizes))
			dense[q.ID] = k
			sizes = append(sizes, min(max(q.Size, minSizedValue), MaxTraceValue))
		}
		if err := stopped(ctx, len(ops), "trace"); err != nil {
			return nil, err
		}
		if len(ops) == 1<<31 {
			return nil, fmt.Errorf("%s: more than %d requests", src.Path, 1<<31)
		}
		if len(ops) == cap(ops) && len(ops) >= 1<<16 {
			if err := traceFits(src.Path, len(ops), len(sizes)); err != nil {
				return nil, err
			}
		}
		ops = append(ops, k)
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("%s: %w", src.Path, trace.ErrEmpty)
	}
	s.Keys, s.Ops = len(sizes), len(ops)
	s.ValueMin, s.ValueMax = int(sizes[0]), int(sizes[0])
	var total int64
	for _, z := range sizes {
		s.ValueMin, s.ValueMax = min(s.ValueMin, int(z)), max(s.ValueMax, int(z))
		total += int64(z)
	}
	if total > 8<<30 {
		return nil, fmt.Errorf("%s: its values need %d GiB; at most 8 GiB is allowed", src.Path, total>>30)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	w := &Workload{Spec: s, Codec: NewCodec(s.Seed), Ops: ops}
	if err := w.genKeys(ctx); err != nil {
		return nil, err
	}
	if err := w.genValues(ctx, func(i int) int { return int(sizes[i]) }); err != nil {
		return nil, err
	}
	if w.OpStream, err = w.NewStream(ops, true); err != nil {
		return nil, err
	}
	return w, nil
}
