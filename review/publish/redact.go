package publish

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/google/go-github/v62/github"
)

// redactingClient returns a client for the same GitHub API as gh whose every write (comments,
// check runs and their annotations, reviews, labels: any POST, PATCH or PUT with a JSON body) has
// each of its strings redacted by Redact before it is sent. The publisher writes through it, so
// that no text it posts, whoever wrote it (the change, an analyzer, a model), carries a secret.
func redactingClient(gh *github.Client) *github.Client {
	if gh == nil {
		return nil
	}
	hc := gh.Client()
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = redactingTransport{base}
	c := github.NewClient(hc)
	c.BaseURL, c.UploadURL, c.UserAgent = gh.BaseURL, gh.UploadURL, gh.UserAgent
	return c
}

type redactingTransport struct{ base http.RoundTripper }

func (t redactingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodPost, http.MethodPatch, http.MethodPut:
	default:
		return t.base.RoundTrip(req)
	}
	if req.Body == nil || req.Body == http.NoBody || !strings.Contains(req.Header.Get("Content-Type"), "json") {
		return t.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("failed to read the body of %s %s to redact it: %w", req.Method, req.URL.Path, err)
	}
	red, err := RedactJSON(body)
	if err != nil {
		// Not JSON after all: redact it as text.
		red = []byte(redact.Redact(string(body)))
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(red))
	out.ContentLength = int64(len(red))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(red)), nil }
	return t.base.RoundTrip(out)
}

// RedactJSON redacts every string of a JSON document (see Redact) and returns it re-encoded, or
// as it was when it held no secret.
func RedactJSON(doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("failed to decode JSON to redact it: %w", err)
	}
	v, changed := redactValue(v)
	if !changed {
		return doc, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("failed to encode redacted JSON: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// structural are the fields of GitHub's write APIs that name things rather than say them: a
// commit, a status, a link. They are sent as they are, so that a false positive of the detector
// cannot send a check run to another commit.
var structural = map[string]bool{"head_sha": true, "sha": true, "commit_id": true, "status": true, "conclusion": true, "details_url": true, "event": true, "external_id": true}

func redactValue(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		r := redact.Redact(x)
		return r, r != x
	case []any:
		changed := false
		for i := range x {
			var c bool
			x[i], c = redactValue(x[i])
			changed = changed || c
		}
		return x, changed
	case map[string]any:
		changed := false
		for k := range x {
			if structural[k] {
				continue
			}
			var c bool
			x[k], c = redactValue(x[k])
			changed = changed || c
		}
		return x, changed
	}
	return v, false
}
