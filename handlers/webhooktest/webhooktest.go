// Package webhooktest sends webhook deliveries the way an attacker or a slow sender would, over a
// raw connection: a request head, then a body streamed until the server answers, so that tests
// and benchmarks see when the server answered and how much of the body it took first.
package webhooktest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Answer is what the server answered to a raw request.
type Answer struct {
	Status int
	// Written counts the body bytes sent before the answer; Took is the time from the first
	// byte of the request to the answer.
	Written int64
	Took    time.Duration
}

// Post writes head (the request line and headers, ending with a blank line) to addr, then
// streams body until the server answers, the server closes the connection, or the body ends.
func Post(addr, head string, body io.Reader) (Answer, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return Answer{}, fmt.Errorf("failed to connect to %s: %w", addr, err)
	}
	defer conn.Close()
	start := time.Now()
	type answer struct {
		Answer
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			answered <- answer{err: fmt.Errorf("no answer from %s: %w", addr, err)}
			return
		}
		resp.Body.Close()
		answered <- answer{Answer: Answer{Status: resp.StatusCode, Took: time.Since(start)}}
	}()
	var written int64
	wait := func() (Answer, error) {
		a := <-answered
		a.Written = written
		return a.Answer, a.err
	}
	if _, err := io.WriteString(conn, head); err != nil {
		return wait()
	}
	buf := make([]byte, 256<<10)
	for {
		select {
		case a := <-answered:
			a.Written = written
			return a.Answer, a.err
		default:
		}
		n, rerr := body.Read(buf)
		if n > 0 {
			_ = conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
			m, werr := conn.Write(buf[:n])
			written += int64(m)
			if werr != nil {
				// The server closed the connection: its answer is what counts.
				return wait()
			}
		}
		if rerr != nil {
			return wait()
		}
	}
}

// Zeros is a body of n zero bytes that costs no memory.
func Zeros(n int64) io.Reader { return &zeros{n} }

type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n)
	clear(p[:k])
	z.n -= k
	return int(k), nil
}

// Chunked frames src in HTTP/1.1 chunks (for a head with "Transfer-Encoding: chunked").
func Chunked(src io.Reader) io.Reader { return &chunked{src: src} }

type chunked struct {
	src  io.Reader
	done bool
	buf  []byte
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.buf) == 0 {
		if c.done {
			return 0, io.EOF
		}
		data := make([]byte, 64<<10)
		n, err := c.src.Read(data)
		if n > 0 {
			c.buf = append(fmt.Appendf(nil, "%x\r\n", n), data[:n]...)
			c.buf = append(c.buf, "\r\n"...)
		}
		if err == io.EOF {
			c.done = true
			c.buf = append(c.buf, "0\r\n\r\n"...)
		} else if err != nil {
			return 0, err
		}
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}
