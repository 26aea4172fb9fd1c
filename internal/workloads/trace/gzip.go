package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
)

// errGzipMember is returned (wrapped) for bytes after a gzip member that
// are no whole gzip member: a trailing member cut inside its header, or
// garbage.
var errGzipMember = errors.New("gzip: a trailing member is truncated or corrupt")

// gzipMembers reads the members of a gzip file one after the other (gzip
// -c a b > ab, or a file appended to). The decoder's own multistream mode
// took a trailing member cut inside its header (after its file name had
// begun) for the end of the file and returned the shorter trace without a
// word; here each member is read on its own, and any byte after a member
// must start a member whose header reads whole.
type gzipMembers struct {
	br  *bufio.Reader
	gz  *gzip.Reader
	err error // sticky
}

func newGzipMembers(br *bufio.Reader, gz *gzip.Reader) *gzipMembers {
	gz.Multistream(false)
	return &gzipMembers{br: br, gz: gz}
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	for g.err == nil {
		n, err := g.gz.Read(p)
		if !errors.Is(err, io.EOF) {
			return n, err
		}
		// The member ended with its checksum verified. The file may end
		// here, or another member follows, whole.
		if _, perr := g.br.Peek(1); errors.Is(perr, io.EOF) {
			g.err = io.EOF
		} else if perr != nil {
			g.err = perr
		} else if rerr := g.gz.Reset(g.br); rerr != nil {
			if errors.Is(rerr, io.EOF) {
				// Never io.EOF: every reader takes that for the end.
				rerr = io.ErrUnexpectedEOF
			}
			g.err = fmt.Errorf("%w: %w", errGzipMember, rerr)
		} else {
			g.gz.Multistream(false)
		}
		if n > 0 {
			return n, nil
		}
	}
	return 0, g.err
}
