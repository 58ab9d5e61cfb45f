package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/gittest"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/voting"
)

// appEnv is the environment of `debatebot serve` against the fake GitHub gh with a new App key,
// the SQLite database db, a repository cache of the test's own and, unless llmURL is empty, the
// model at llmURL; extra come last (and win).
func appEnv(t testing.TB, gh *githubtest.Server, db, llmURL string, extra ...string) []string {
	t.Helper()
	env := []string{
		"GITHUB_V3_API_URL=" + gh.URL + "/", "GITHUB_APP_INTEGRATION_ID=1", "GITHUB_APP_WEBHOOK_SECRET=s3cret",
		"GITHUB_APP_PRIVATE_KEY=" + testAppKey(t),
		"DEBATEBOT_DATABASE_URL=sqlite:" + db, "DEBATEBOT_CACHE_DIR=" + filepath.Join(t.TempDir(), "cache"),
		"DEBATEBOT_GOPROXY=off", // no test reaches the network
	}
	if llmURL != "" {
		env = append(env, "OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+llmURL)
	}
	return append(env, extra...)
}

// appKey is the App's private key of every test, generated once per test run: a 2048-bit key
// takes a noticeable fraction of a second under the race detector, and the fake GitHub accepts
// any key.
var appKey = sync.OnceValues(func() (string, error) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})), nil
})

// testAppKey is appKey, PEM-encoded, or fails t.
func testAppKey(t testing.TB) string {
	t.Helper()
	k, err := appKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// newServe is `debatebot serve` from bin, not started yet, on a free loopback address.
func newServe(t *testing.T, bin string, env []string) *serveProcess {
	p := &serveProcess{t: t, bin: bin, addr: freeAddr(t)}
	p.env = append(append([]string(nil), env...), "DEBATEBOT_ADDR="+p.addr)
	return p
}

// putExample puts the bundled example change on the fake GitHub as acme/shop#n at head.
func putExample(t testing.TB, gh *githubtest.Server, n int, head string) {
	t.Helper()
	diff, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	gh.PRs[fmt.Sprintf("acme/shop#%d", n)] = &githubtest.PR{Title: "Add admin user export", BaseRef: "main", HeadRef: "export", HeadSHA: head, Diff: string(diff)}
}

// checkPublishedOnce waits a moment for the publication to land (it may lag the stored decision),
// then fails t unless acme/shop#7 has one transcript comment, one decision comment and one
// concluded check run.
func checkPublishedOnce(t *testing.T, gh *githubtest.Server, after string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && !concluded(gh) {
		time.Sleep(20 * time.Millisecond)
	}
	var transcripts, decisions int
	for _, c := range gh.CommentsOn("acme/shop#7") {
		switch {
		case strings.HasPrefix(c.Body, render.TranscriptMarker):
			transcripts++
		case strings.HasPrefix(c.Body, render.DecisionMarker):
			decisions++
		}
	}
	runs := gh.Checks("acme/shop")
	if transcripts != 1 || decisions != 1 || len(runs) != 1 || runs[0].Status != "completed" {
		t.Errorf("after %s: %d transcript, %d decision comments, check runs %+v; want one each, concluded", after, transcripts, decisions, runs)
	}
}

func concluded(gh *githubtest.Server) bool {
	runs := gh.Checks("acme/shop")
	return len(runs) == 1 && runs[0].Status == "completed"
}

// webhookFixture loads a real payload and points it at acme/shop#pr, sent by sender.
func webhookFixture(t *testing.T, name string, pr int, edit func(map[string]any)) []byte {
	t.Helper()
	p := githubtest.Payload(t, filepath.Join("..", "..", "handlers", "testdata", "webhooks", name))
	p["installation"] = map[string]any{"id": 42}
	p["sender"] = map[string]any{"login": "alice", "type": "User"}
	if v, ok := p["pull_request"].(map[string]any); ok {
		v["number"], v["draft"] = pr, false
	}
	if v, ok := p["issue"].(map[string]any); ok {
		v["number"] = pr
	}
	if edit != nil {
		edit(p)
	}
	out, _ := json.Marshal(p)
	return out
}

// debateRecord runs `debatebot debate ARGS --format json` and returns its decision record.
func debateRecord(t *testing.T, args ...string) voting.Record {
	t.Helper()
	code, out, errOut := runCmd(t, "", nil, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	return readRecord(t, out).Decision
}

// recordDoc is what --format json prints.
type recordDoc struct {
	Decision voting.Record `json:"decision"`
}

// readRecord reads the decision record --format json printed.
func readRecord(t *testing.T, out string) recordDoc {
	t.Helper()
	var doc recordDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return doc
}

// nilguardPR serves handlers/testdata/nilguard as acme/shop over git on gh, with acme/shop#7 from
// its main (the base) to its feature (the head, which removes a nil guard); it returns the
// repository's folder and the head commit.
func nilguardPR(t *testing.T, gh *githubtest.Server) (dir, head string) {
	t.Helper()
	dir = gittest.FromTrees(t, "../../handlers/testdata/nilguard/base", "../../handlers/testdata/nilguard/head")
	gh.AddGitRepo("acme/shop", dir)
	diff, err := exec.Command("git", "-C", dir, "diff", "--no-color", "--no-ext-diff", "main..feature").Output()
	if err != nil {
		t.Fatal(err)
	}
	head = gittest.Rev(t, dir, "feature")
	gh.PRs["acme/shop#7"] = &githubtest.PR{Title: "Describe users without a fallback", BaseRef: "main", HeadRef: "feature",
		BaseSHA: gittest.Rev(t, dir, "main"), HeadSHA: head, Diff: string(diff)}
	return dir, head
}
