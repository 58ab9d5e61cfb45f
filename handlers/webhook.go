package handlers

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1" // GitHub's legacy X-Hub-Signature, accepted as go-github accepts it
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"
)

// MaxWebhookBody is the largest delivery read: GitHub caps webhook payloads at 25 MB, so a body
// over 25 MiB is not GitHub's and is refused with 413 before it is read (from Content-Length)
// or as soon as it passes the cap (chunked bodies).
const MaxWebhookBody = 25 << 20

// Webhook bodies are read before their signature is checked, so anyone can make the server
// hold one. webhookMemory bounds the bytes of all bodies being read or handled at once; a
// delivery that cannot get its share within webhookMemoryWait is answered 503 (GitHub shows it
// failed, it can be redelivered). Two bodies of undeclared length fit at once.
var (
	webhookMemory     int64 = 2 * (MaxWebhookBody + blockSize)
	webhookMemoryWait       = 5 * time.Second
)

// retryAfter is what a refused delivery is told to wait, in seconds.
const retryAfter = "30"

// deliveryError is a delivery refused before it reaches a handler, or by a handler for what it
// is (not for a fault of the server): it carries the status to answer.
type deliveryError struct {
	status int
	err    error
}

func (e *deliveryError) Error() string { return e.err.Error() }
func (e *deliveryError) Unwrap() error { return e.err }

// badDelivery marks err as the sender's fault: a delivery that cannot be read as the event it
// names is answered 400, logged as a bad delivery and never stored.
func badDelivery(err error) error { return &deliveryError{status: http.StatusBadRequest, err: err} }

func refuse(status int, format string, args ...any) error {
	return &deliveryError{status: status, err: fmt.Errorf(format, args...)}
}

// errDraining refuses deliveries while the server drains after SIGTERM.
var errDraining = &deliveryError{status: http.StatusServiceUnavailable, err: errors.New("the server is shutting down; redeliver later")}

// webhookGuard stands before go-githubapp's dispatcher and checks, cheapest first, what the
// dispatcher would otherwise find out only after reading the whole body into memory, or not
// at all: the draining server, the event and delivery headers, the Content-Type, the declared
// size; then it reads the body within the memory budget and the size cap and verifies its
// signature. The dispatcher gets a body that is known to be GitHub's.
type webhookGuard struct {
	next     http.Handler
	secret   []byte
	onError  githubapp.ErrorCallback
	draining *atomic.Bool
	budget   *memoryBudget
}

// deliveryIDPattern is what GitHub's delivery ids look like (GUIDs) with room to spare: they
// key the deliveries kept in the store.
var deliveryIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

func (g *webhookGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := g.check(r); err != nil {
		g.refuse(w, r, err)
		return
	}
	body, err := g.read(w, r)
	if err != nil {
		g.refuse(w, r, err)
		return
	}
	defer body.free()
	if err := g.verify(r, body); err != nil {
		g.refuse(w, r, err)
		return
	}
	r.Body, r.ContentLength = io.NopCloser(body.reader()), body.size
	g.next.ServeHTTP(w, r)
}

func (g *webhookGuard) refuse(w http.ResponseWriter, r *http.Request, err error) {
	var de *deliveryError
	if errors.As(err, &de) && de.status == http.StatusRequestEntityTooLarge {
		// The rest of the body is not read: the connection cannot be used again.
		w.Header().Set("Connection", "close")
	}
	g.onError(w, r, err)
}

// check refuses from the headers alone, before anything of the body is read.
func (g *webhookGuard) check(r *http.Request) error {
	if g.draining.Load() {
		return errDraining
	}
	if r.Header.Get("X-GitHub-Event") == "" {
		return refuse(http.StatusBadRequest, "missing X-GitHub-Event header")
	}
	if id := r.Header.Get("X-GitHub-Delivery"); !deliveryIDPattern.MatchString(id) {
		if id == "" {
			return refuse(http.StatusBadRequest, "missing X-GitHub-Delivery header")
		}
		return refuse(http.StatusBadRequest, "malformed X-GitHub-Delivery header %q", truncate(id, 64))
	}
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return refuse(http.StatusBadRequest, "malformed Content-Type %q: %w", truncate(r.Header.Get("Content-Type"), 64), err)
	}
	if ct != "application/json" && ct != "application/x-www-form-urlencoded" {
		return refuse(http.StatusBadRequest, "unsupported Content-Type %q (want application/json or application/x-www-form-urlencoded)", truncate(ct, 64))
	}
	if r.ContentLength > MaxWebhookBody {
		return refuse(http.StatusRequestEntityTooLarge, "the body of %d bytes is over the limit of %d bytes", r.ContentLength, MaxWebhookBody)
	}
	return nil
}

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

// verify checks the body's HMAC as GitHub signs it (and as go-github checks it): with
// X-Hub-Signature-256, or the legacy X-Hub-Signature when only that is sent.
func (g *webhookGuard) verify(r *http.Request, body *webhookBody) error {
	sig := r.Header.Get(github.SHA256SignatureHeader)
	if sig == "" {
		sig = r.Header.Get(github.SHA1SignatureHeader)
	}
	if len(g.secret) == 0 && sig == "" {
		return nil
	}
	if err := checkSignature(sig, body.parts, g.secret); err != nil {
		return refuse(http.StatusUnauthorized, "the signature does not verify: %w", err)
	}
	return nil
}

func checkSignature(sig string, parts [][]byte, secret []byte) error {
	if sig == "" {
		return errors.New("missing signature")
	}
	alg, sum, ok := strings.Cut(sig, "=")
	if !ok {
		return errors.New("malformed signature")
	}
	var h func() hash.Hash
	switch alg {
	case "sha256":
		h = sha256.New
	case "sha512":
		h = sha512.New
	case "sha1":
		h = sha1.New
	default:
		return fmt.Errorf("unknown hash type %q", truncate(alg, 16))
	}
	want, err := hex.DecodeString(sum)
	if err != nil {
		return errors.New("malformed signature")
	}
	mac := hmac.New(h, secret)
	for _, p := range parts {
		mac.Write(p)
	}
	if !hmac.Equal(mac.Sum(nil), want) {
		return errors.New("payload signature check failed")
	}
	return nil
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
