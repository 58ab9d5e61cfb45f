package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// blockSize is the unit in which bodies larger than it, or of undeclared size, are read:
// pooled blocks that are used again rather than left to the collector, so that a flood of large
// bodies keeps the heap flat.
const blockSize = 1 << 20

var blocks = sync.Pool{New: func() any { b := make([]byte, blockSize); return &b }}

// webhookBody is a body read whole, in one exact buffer (small bodies of declared length) or in
// pooled blocks, and the share of the memory budget it holds until free.
type webhookBody struct {
	parts  [][]byte
	pooled []*[]byte
	size   int64
	held   int64
	budget *memoryBudget
}

func (b *webhookBody) reader() io.Reader {
	rs := make([]io.Reader, len(b.parts))
	for i, p := range b.parts {
		rs[i] = bytes.NewReader(p)
	}
	return io.MultiReader(rs...)
}

func (b *webhookBody) free() {
	for _, p := range b.pooled {
		blocks.Put(p)
	}
	b.pooled, b.parts = nil, nil
	b.budget.release(b.held)
	b.held = 0
}

// read reads the whole body, at most MaxWebhookBody bytes, holding its share of the memory
// budget first: its declared length, or the whole cap when the length is not declared (a
// chunked body), so that bodies being read never wait on each other to grow.
func (g *webhookGuard) read(w http.ResponseWriter, r *http.Request) (*webhookBody, error) {
	src := http.MaxBytesReader(w, r.Body, MaxWebhookBody)
	ctx, cancel := context.WithTimeout(r.Context(), webhookMemoryWait)
	defer cancel()
	declared := r.ContentLength
	share := int64(MaxWebhookBody + blockSize)
	if declared >= 0 {
		share = declared
		if declared > blockSize {
			share = (declared + blockSize - 1) / blockSize * blockSize
		}
	}
	if err := g.budget.acquire(ctx, share); err != nil {
		return nil, err
	}
	body := &webhookBody{held: share, budget: g.budget}
	var cur []byte
	if declared >= 0 && declared <= blockSize {
		cur = make([]byte, 0, declared)
		body.parts = append(body.parts, cur)
	}
	for {
		if len(cur) == cap(cur) {
			if declared >= 0 && body.size >= declared {
				// All that was declared is here: only the end may follow.
				var probe [1]byte
				n, err := src.Read(probe[:])
				switch {
				case n == 0 && errors.Is(err, io.EOF):
					return body, nil
				case n == 0 && err == nil:
					continue
				case n > 0:
					err = errors.New("the body is longer than its Content-Length")
				}
				body.free()
				return nil, readError(err)
			}
			p := blocks.Get().(*[]byte)
			body.pooled = append(body.pooled, p)
			cur = (*p)[:0]
			body.parts = append(body.parts, cur)
		}
		n, err := src.Read(cur[len(cur):cap(cur)])
		cur = cur[:len(cur)+n]
		body.parts[len(body.parts)-1] = cur
		body.size += int64(n)
		if errors.Is(err, io.EOF) {
			return body, nil
		}
		if err != nil {
			body.free()
			return nil, readError(err)
		}
	}
}

func readError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return refuse(http.StatusRequestEntityTooLarge, "the body is over the limit of %d bytes", MaxWebhookBody)
	}
	return refuse(http.StatusBadRequest, "failed to read the body: %w", err)
}

// memoryBudget counts bytes held by webhook bodies. Unlike a FIFO semaphore, a small request
// that fits goes ahead of a large one that waits.
type memoryBudget struct {
	mu   sync.Mutex
	free int64
	wake chan struct{}
}

func newMemoryBudget(n int64) *memoryBudget {
	return &memoryBudget{free: n, wake: make(chan struct{})}
}

func (b *memoryBudget) acquire(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.free >= n {
			b.free -= n
			b.mu.Unlock()
			return nil
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return &deliveryError{status: http.StatusServiceUnavailable,
				err: fmt.Errorf("too many webhook bodies are being read at once to hold %d more bytes: %w", n, ctx.Err())}
		}
	}
}

func (b *memoryBudget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}
