// Package race has goroutines that assign variables of the function that starts them.
package race

import (
	"io"
	"sync"
)

// Pipe copies both ways; both copies assign the one err.
func Pipe(a, b io.ReadWriter) error {
	var err error
	done := make(chan error, 2)
	cp := func(dst io.Writer, src io.Reader) {
		_, err = io.Copy(dst, src) // want: captured-var-race
		done <- err
	}
	go cp(a, b)
	go cp(b, a)
	return <-done
}

// PipeOwn gives each copy its own error.
func PipeOwn(a, b io.ReadWriter) error {
	done := make(chan error, 2)
	cp := func(dst io.Writer, src io.Reader) {
		_, err := io.Copy(dst, src)
		done <- err
	}
	go cp(a, b)
	go cp(b, a)
	return <-done
}

// Two starts two literals that both assign n.
func Two(f func() int) int {
	n := 0
	go func() {
		n = f() // want: captured-var-race
	}()
	go func() {
		n = f()
	}()
	return n
}

// Loop starts a goroutine per item, all assigning last.
func Loop(items []string, f func(string) string) {
	var last string
	for _, it := range items {
		go func() {
			last = f(it) // want: captured-var-race
		}()
	}
	_ = last
}

// LoopOwn declares the variable inside the loop.
func LoopOwn(items []string, f func(string) string, out chan<- string) {
	for _, it := range items {
		var v string
		go func() {
			v = f(it)
			out <- v
		}()
	}
}

// ReadEarly reads the result before anything waits for the goroutine.
func ReadEarly(f func() error) error {
	var err error
	go func() {
		err = f() // want: captured-var-race
	}()
	return err
}

// Waited reads it after Wait.
func Waited(f func() error) error {
	var err error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		err = f()
	}()
	wg.Wait()
	return err
}

// Received reads it after the goroutine says it is done.
func Received(f func() error) error {
	var err error
	done := make(chan struct{})
	go func() {
		err = f()
		close(done)
	}()
	<-done
	return err
}

// Locked assigns under a mutex.
func Locked(fs []func() int) int {
	var mu sync.Mutex
	total := 0
	for _, f := range fs {
		go func() {
			mu.Lock()
			total = total + f()
			mu.Unlock()
		}()
	}
	return 0
}
