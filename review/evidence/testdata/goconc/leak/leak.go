// Package leak has goroutines that send their result on a channel.
package leak

import (
	"context"
	"time"
)

// Timeout gives up on the result after d; the sender then blocks forever.
func Timeout(f func() int, d time.Duration) (int, bool) {
	ch := make(chan int) // want: goroutine-leak
	go func() {
		ch <- f()
	}()
	select {
	case v := <-ch:
		return v, true
	case <-time.After(d):
		return 0, false
	}
}

// TimeoutBuffered leaves room for the late result.
func TimeoutBuffered(f func() int, d time.Duration) (int, bool) {
	ch := make(chan int, 1)
	go func() {
		ch <- f()
	}()
	select {
	case v := <-ch:
		return v, true
	case <-time.After(d):
		return 0, false
	}
}

// Early returns before receiving when the fast path answers.
func Early(f func() bool, fast func() bool) bool {
	res := make(chan bool) // want: goroutine-leak
	go func() {
		defer close(res)
		res <- f()
	}()
	if fast() {
		return true
	}
	for v := range res {
		return v
	}
	return false
}

// Always receives on every path.
func Always(f func() int) int {
	ch := make(chan int)
	go func() {
		ch <- f()
	}()
	return <-ch
}

// Watched sends in a select that also watches the context.
func Watched(ctx context.Context, f func() int) int {
	ch := make(chan int)
	go func() {
		select {
		case ch <- f():
		case <-ctx.Done():
		}
	}()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		return 0
	}
}

// HandedOn gives the channel to a helper that may receive from it.
func HandedOn(f func() int, drain func(<-chan int), stop bool) {
	ch := make(chan int)
	go func() {
		ch <- f()
	}()
	if stop {
		drain(ch)
		return
	}
	<-ch
}
