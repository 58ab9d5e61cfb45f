// Package timer waits in loops.
package timer

import "time"

// Wait makes a timer per wakeup of the loop.
func Wait(events <-chan int, d time.Duration, handle func(int)) bool {
	for {
		select {
		case e := <-events:
			handle(e)
		case <-time.After(d): // want: timer-per-iteration
			return false
		}
	}
}

// Deadline waits with goto, as a hand-written loop does.
func Deadline(notify <-chan struct{}, ready func() bool, deadline time.Time) bool {
START:
	if ready() {
		return true
	}
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		timeout = time.After(time.Until(deadline)) // want: timer-per-iteration
	}
	select {
	case <-notify:
		goto START
	case <-timeout:
		return false
	}
}

// Tick: the other case leaves the loop, so no timer is left behind while it runs.
func Tick(stop <-chan struct{}, d time.Duration, work func()) {
	for {
		select {
		case <-time.After(d):
			work()
		case <-stop:
			return
		}
	}
}

// Once makes one timer for the whole loop.
func Once(events <-chan int, d time.Duration, handle func(int)) bool {
	timeout := time.After(d)
	for {
		select {
		case e := <-events:
			handle(e)
		case <-timeout:
			return false
		}
	}
}
