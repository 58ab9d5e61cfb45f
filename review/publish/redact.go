package publish

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/debatebot/debatebot/review/evidence/redact"
)

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
