// Package unclosed opens files, connections and decompressors; the functions marked "want"
// leave one open on a path to a return, the others close it, hand it on or fail to open it.
package unclosed

import (
	"compress/gzip"
	"errors"
	"io"
	"net"
	"os"
)

var errEmpty = errors.New("empty")

// EarlyReturn returns before the deferred Close is registered.
func EarlyReturn(path string, n int) error {
	f, err := os.Open(path) // want: unclosed-resource
	if err != nil {
		return err
	}
	if n == 0 {
		return errEmpty
	}
	defer f.Close()
	_, err = io.CopyN(io.Discard, f, int64(n))
	return err
}

// Deferred closes on every path once the file is open.
func Deferred(path string, n int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if n == 0 {
		return errEmpty
	}
	_, err = io.CopyN(io.Discard, f, int64(n))
	return err
}

// OnlyUsed wraps a descriptor and never closes the wrapper: net.FileListener duplicates it.
func OnlyUsed(fd int) (net.Listener, error) {
	f := os.NewFile(uintptr(fd), "listener") // want: unclosed-resource
	return net.FileListener(f)
}

// ClosedAfterUse closes the wrapper once the listener has its own descriptor.
func ClosedAfterUse(fd int) (net.Listener, error) {
	f := os.NewFile(uintptr(fd), "listener")
	defer f.Close()
	return net.FileListener(f)
}

// Dropped creates a file and drops it.
func Dropped(path string) {
	os.Create(path) // want: unclosed-resource
}

// Gunzip never closes the decompressor.
func Gunzip(r io.Reader) ([]byte, error) {
	zr, err := gzip.NewReader(r) // want: unclosed-resource
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// GunzipClosed closes it on the main path; the error path leaves it to the collector, which is
// fine for memory.
func GunzipClosed(r io.Reader) ([]byte, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	return b, zr.Close()
}

// Returned hands the file to the caller.
func Returned(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return f, nil
}

type holder struct{ c io.Closer }

// Stored keeps the connection in a field.
func (h *holder) Stored(addr string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	h.c = c
	return nil
}

func serve(c net.Conn) { defer c.Close() }

// HandedOn passes the connection to a function of the package, which closes it.
func HandedOn(l net.Listener) error {
	c, err := l.Accept()
	if err != nil {
		return err
	}
	serve(c)
	return nil
}

// Goroutine gives the connection to a goroutine.
func Goroutine(addr string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	go func() {
		defer c.Close()
		_, _ = io.Copy(io.Discard, c)
	}()
	return nil
}

// DeferredClosure closes in a deferred literal; a failed open has nothing to close.
func DeferredClosure(path string) (n int, err error) {
	f, err := os.Create(path)
	if err == nil {
		defer func() { _ = f.Close() }()
		n, err = io.WriteString(f, "x")
	}
	return n, err
}

// Panics leaves the file open only on the path that panics.
func Panics(path string, ok bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if !ok {
		panic("not ok")
	}
	return f.Close()
}

// ErrorVarOfCallback opens inside a callback whose error is a parameter.
func ErrorVarOfCallback(paths []string) error {
	visit := func(p string, err error) error {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return nil
	}
	for _, p := range paths {
		if err := visit(p, nil); err != nil {
			return err
		}
	}
	return nil
}
