package cli

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeMemcached is a memcached text-protocol server on loopback for
// fault tests. It answers the commands the adapter sends when it is
// created (stats settings, flush_all, stats); then, by mode:
//   - "wrong": it stores what is set and answers each get with another
//     key's value;
//   - "frozen": it reads data commands (get, set) and never answers them.
type fakeMemcached struct {
	Addr string
	mode string
	l    net.Listener

	mu    sync.Mutex
	items map[string][]byte
	keys  []string
	conns []net.Conn
	done  chan struct{}
	// data is closed at the first data command (get or set).
	data     chan struct{}
	dataOnce sync.Once
}

func startFakeMemcached(t *testing.T, mode string) *fakeMemcached {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeMemcached{Addr: l.Addr().String(), mode: mode, l: l, items: map[string][]byte{}, done: make(chan struct{}), data: make(chan struct{})}
	go f.serve()
	t.Cleanup(f.close)
	return f
}

func (f *fakeMemcached) close() {
	close(f.done)
	f.l.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		c.Close()
	}
}

func (f *fakeMemcached) serve() {
	for {
		c, err := f.l.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
		go f.handle(c)
	}
}

func (f *fakeMemcached) handle(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "set", "add", "replace", "get", "gets":
			f.dataOnce.Do(func() { close(f.data) })
		}
		switch fields[0] {
		case "stats":
			fmt.Fprint(w, "STAT maxbytes 67108864\r\nSTAT limit_maxbytes 67108864\r\nSTAT item_size_max 1048576\r\nSTAT curr_items 0\r\nSTAT bytes 0\r\nEND\r\n")
		case "flush_all":
			fmt.Fprint(w, "OK\r\n")
		case "set", "add", "replace":
			if len(fields) < 5 {
				fmt.Fprint(w, "ERROR\r\n")
				break
			}
			n, _ := strconv.Atoi(fields[4])
			data := make([]byte, n+2)
			if _, err := io.ReadFull(r, data); err != nil {
				return
			}
			if f.mode == "frozen" {
				<-f.done
				return
			}
			f.mu.Lock()
			if _, ok := f.items[fields[1]]; !ok {
				f.keys = append(f.keys, fields[1])
			}
			f.items[fields[1]] = data[:n]
			f.mu.Unlock()
			fmt.Fprint(w, "STORED\r\n")
		case "get", "gets":
			if f.mode == "frozen" {
				<-f.done
				return
			}
			for _, k := range fields[1:] {
				f.mu.Lock()
				v, ok := f.items[k]
				if ok && len(f.keys) > 1 {
					// Another key's value.
					for i, o := range f.keys {
						if o == k {
							v = f.items[f.keys[(i+1)%len(f.keys)]]
							break
						}
					}
				}
				f.mu.Unlock()
				if ok {
					fmt.Fprintf(w, "VALUE %s 0 %d 1\r\n%s\r\n", k, len(v), v)
				}
			}
			fmt.Fprint(w, "END\r\n")
		case "delete":
			fmt.Fprint(w, "NOT_FOUND\r\n")
		case "version":
			fmt.Fprint(w, "VERSION 1.6.0-fake\r\n")
		default:
			fmt.Fprint(w, "ERROR\r\n")
		}
		if err := w.Flush(); err != nil {
			return
		}
	}
}
