package handlers

import (
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
	"sync/atomic"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"
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

// errorCallback answers every refused delivery. The guard before the dispatcher has verified
// the signature, so only its refusals are 401. A delivery that is the sender's fault (missing
// headers, a wrong Content-Type, a body over the cap, JSON that is not the event it names) is
// 4xx and logged as a bad delivery; a store that could not keep it, or a draining server, is 503
// with Retry-After (GitHub shows it failed; it can be redelivered); anything else is a server
// error, 500.
func errorCallback(m *Metrics) githubapp.ErrorCallback {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		log := zerolog.Ctx(r.Context())
		status := http.StatusInternalServerError
		var de *deliveryError
		var ve githubapp.ValidationError
		switch {
		case errors.As(err, &de):
			status = de.status
		case errors.As(err, &ve):
			// The signature was verified before the dispatcher: what it refuses is malformed.
			status = http.StatusBadRequest
		case errors.Is(err, ErrUnavailable):
			status = http.StatusServiceUnavailable
		}
		m.webhookOutcome(r.Header.Get("X-GitHub-Event"), http.StatusText(status))
		ev := log.Warn()
		msg := "Refused a bad webhook delivery."
		switch {
		case status == http.StatusServiceUnavailable:
			msg = "Refused a webhook delivery for now; it can be redelivered."
			w.Header().Set("Retry-After", retryAfter)
		case status >= 500:
			ev, msg = log.Error(), "Failed to handle a webhook delivery."
		}
		ev.Err(err).Str("delivery_id", truncate(r.Header.Get("X-GitHub-Delivery"), 128)).Int("status", status).Msg(msg)
		http.Error(w, http.StatusText(status)+": "+err.Error(), status)
	}
}

// timed measures how long a delivery took to acknowledge.
func timed(m *Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		next.ServeHTTP(w, r)
		m.acknowledged(time.Since(start))
	})
}

// withLogger gives every request (deliveries and the dashboard's pages) the server's logger.
func withLogger(log zerolog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(log.WithContext(r.Context())))
	})
}
