package publish

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/reviewtest"
)

func TestRedactJSONMasksTextAndKeepsStructure(t *testing.T) {
	in := `{"name":"debatebot","head_sha":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b","status":"completed","output":{"title":"Escalate","summary":"the key ` + reviewtest.AWSKey + ` leaked","annotations":[{"path":"a.go","start_line":3,"message":"token ` + reviewtest.GitHubToken + `"}]},"id":12345678901234}`
	out, err := RedactJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if strings.Contains(got, reviewtest.AWSKey) || strings.Contains(got, reviewtest.GitHubToken) {
		t.Fatalf("secrets left: %s", got)
	}
	for _, want := range []string{`"head_sha":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"`, `"id":12345678901234`, `"start_line":3`, `AKIA********`} {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
	clean := `{"body":"nothing to hide"}`
	if out, _ := RedactJSON([]byte(clean)); string(out) != clean {
		t.Errorf("a clean body was re-encoded: %s", out)
	}
}
