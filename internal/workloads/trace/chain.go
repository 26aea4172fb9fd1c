package trace

import (
	"context"
	"errors"
	"io"
	"strings"
)

// Chain is the format of a Source made of Parts: their requests replayed
// as one stream, one trace after the other (to see how a policy adapts
// when the workload changes). Each part keeps its own format, and an
// error names the part's file and its record number there.
const Chain Format = "chain"

// ChainPrefix starts a chained trace argument: chain:A+B+C.
const ChainPrefix = "chain:"

// ParseChain splits "chain:A+B" into its parts' arguments; ok is false
// for an argument that is not a chain.
func ParseChain(arg string) (parts []string, ok bool) {
	rest, ok := strings.CutPrefix(arg, ChainPrefix)
	if !ok {
		return nil, false
	}
	return strings.Split(rest, "+"), true
}

// NewChain is the Source that replays parts in turn.
func NewChain(parts []Source) Source {
	return Source{Format: Chain, Path: chainName(parts), Parts: parts}
}

func chainName(parts []Source) string {
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = p.DisplayName()
	}
	return strings.Join(names, "+")
}

// chainReader reads its parts one after the other, opening each when the
// one before it ends.
type chainReader struct {
	ctx   context.Context
	parts []Source
	cur   *File
}

func openChain(ctx context.Context, parts []Source) (*File, error) {
	if len(parts) == 0 {
		return nil, errors.New("a chain of no traces")
	}
	// Every part is checked now, and the first opened, so that a missing
	// or unreadable part is an error of Open, not of a read much later.
	for _, p := range parts {
		if err := p.Check(); err != nil {
			return nil, err
		}
	}
	c := &chainReader{ctx: ctx, parts: parts}
	if err := c.open(); err != nil {
		return nil, err
	}
	return &File{Reader: c, f: c}, nil
}

func (c *chainReader) open() error {
	f, err := c.parts[0].Open(c.ctx)
	if err != nil {
		return err
	}
	c.cur, c.parts = f, c.parts[1:]
	return nil
}

// Next implements Reader.
func (c *chainReader) Next(q *Request) error {
	for {
		if c.cur == nil {
			if len(c.parts) == 0 {
				return io.EOF
			}
			if err := c.open(); err != nil {
				return err
			}
		}
		err := c.cur.Next(q)
		if !errors.Is(err, io.EOF) {
			return err
		}
		if err := c.cur.Close(); err != nil {
			return err
		}
		c.cur = nil
	}
}

// Close closes the part being read.
func (c *chainReader) Close() error {
	if c.cur == nil {
		return nil
	}
	err := c.cur.Close()
	c.cur = nil
	return err
}
