package trace

import "context"

// Cancellable returns a Reader that yields r's requests and returns ctx's
// error once ctx is cancelled, looking at it every checkEvery requests:
// a replay or a rewrite of a long trace stops within milliseconds.
func Cancellable(ctx context.Context, r Reader) Reader {
	if ctx.Done() == nil {
		return r
	}
	return &cancellable{ctx: ctx, r: r}
}

type cancellable struct {
	ctx context.Context
	r   Reader
	n   int
}

func (c *cancellable) Next(q *Request) error {
	if c.n++; c.n%checkEvery == 0 {
		if err := c.ctx.Err(); err != nil {
			return err
		}
	}
	return c.r.Next(q)
}
