// Package leak starts goroutines that send on unbuffered channels; the functions marked "want"
// can stop receiving before the goroutine sends, the others cannot.
package leak

import (
	"context"
	"errors"
	"time"
)

func fetch() (string, error) { return "x", nil }

func check(string) error { return nil }

// Timeout leaks the sender when the timeout fires first.
func Timeout(ctx context.Context) (string, error) {
	ch := make(chan string)
	go func() { // want: goroutine-leak
		v, _ := fetch()
		ch <- v
	}()
	select {
	case v := <-ch:
		return v, nil
	case <-time.After(time.Second):
		return "", errors.New("timeout")
	}
}

// EarlyReturn returns on a validation error before receiving.
func EarlyReturn(name string) (string, error) {
	ch := make(chan string)
	go func() { v, _ := fetch(); ch <- v }() // want: goroutine-leak
	if name == "" {
		return "", errors.New("no name")
	}
	return <-ch, nil
}

// FirstOfMany receives once from several senders.
func FirstOfMany(urls []string) string {
	ch := make(chan string)
	for _, u := range urls {
		go func() { ch <- u }() // want: goroutine-leak
	}
	return <-ch
}

// FanIn returns on the first error, leaving the other senders blocked.
func FanIn(items []string) error {
	errc := make(chan error)
	for _, it := range items {
		go func() { errc <- check(it) }() // want: goroutine-leak
	}
	for range items {
		if err := <-errc; err != nil {
			return err
		}
	}
	return nil
}

// Named starts a function of the package that sends on its parameter.
func Named(ctx context.Context) error {
	ch := make(chan error)
	go worker(ch) // want: goroutine-leak
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func worker(out chan error) { out <- check("w") }

// Never makes a channel it never receives from.
func Never() {
	var ch = make(chan int)
	go func() { ch <- 1 }() // want: goroutine-leak
}

// Buffered has room for the one send.
func Buffered(ctx context.Context) (string, error) {
	ch := make(chan string, 1)
	go func() { v, _ := fetch(); ch <- v }()
	select {
	case v := <-ch:
		return v, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// SenderSelects gives up sending when the context ends.
func SenderSelects(ctx context.Context) (string, error) {
	ch := make(chan string)
	go func() {
		v, _ := fetch()
		select {
		case ch <- v:
		case <-ctx.Done():
		}
	}()
	select {
	case v := <-ch:
		return v, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Always receives on every path.
func Always() string {
	ch := make(chan string)
	go func() { v, _ := fetch(); ch <- v }()
	return <-ch
}

// Waits in a loop that is left only by receiving.
func Waits(tick <-chan time.Time) string {
	ch := make(chan string)
	go func() { v, _ := fetch(); ch <- v }()
	for {
		select {
		case v := <-ch:
			return v
		case <-tick:
		}
	}
}

// Counted receives once per sender.
func Counted(items []string) []error {
	errc := make(chan error)
	for _, it := range items {
		go func() { errc <- check(it) }()
	}
	var errs []error
	for range items {
		errs = append(errs, <-errc)
	}
	return errs
}

// Closed closes its channel instead of sending on it.
func Closed(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = fetch()
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Escapes hands the channel to a function that may receive from it.
func Escapes(ctx context.Context) error {
	ch := make(chan error)
	go func() { ch <- nil }()
	register(ch)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case err := <-ch:
		return err
	}
}

func register(chan error) {}

// PerIteration makes a channel per iteration and receives from it each time.
func PerIteration(items []string) []string {
	var out []string
	for _, it := range items {
		ch := make(chan string)
		go func() { ch <- it }()
		out = append(out, <-ch)
	}
	return out
}

// Panics leaves by panicking, not returning, before it receives.
func Panics(name string) string {
	ch := make(chan string)
	go func() { ch <- name }()
	if name == "" {
		panic("no name")
	}
	return <-ch
}

// Deferred receives when it returns.
func Deferred(name string) error {
	ch := make(chan string)
	go func() { ch <- name }()
	defer func() { <-ch }()
	if name == "" {
		return errors.New("no name")
	}
	return nil
}
