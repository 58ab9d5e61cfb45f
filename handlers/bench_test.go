package handlers

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/githubtest"
)

// BenchmarkWebhookAck posts 500 signed deliveries, 50 at a time, and reports the p50 and p99 of
// the time to acknowledge them (signature check, parse, persist the delivery and its job), as
// the client sees it and as the server does (from the request's arrival in the handler to its
// answer; the client shares the machine's two cores).
func BenchmarkWebhookAck(b *testing.B) {
	a := newApp(b)
	body := fixture(b, "pull_request.opened.json", nil)
	var p50, p99 time.Duration
	round := 0
	for b.Loop() {
		round++
		lat := make([]time.Duration, 500)
		var wg sync.WaitGroup
		sem := make(chan struct{}, 50)
		for i := range lat {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				start := time.Now()
				if code := a.post("pull_request", fmt.Sprintf("r%d-%d", round, i), body, secret); code >= 300 {
					b.Errorf("delivery answered %d", code)
				}
				lat[i] = time.Since(start)
			}()
		}
		wg.Wait()
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		p50, p99 = lat[len(lat)/2], lat[len(lat)*99/100]
	}
	a.srv.Queue.Wait()
	a.mu.Lock()
	served := append([]time.Duration(nil), a.served...)
	a.mu.Unlock()
	sort.Slice(served, func(i, j int) bool { return served[i] < served[j] })
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(served[len(served)/2].Microseconds())/1000, "server-p50-ms")
	b.ReportMetric(float64(served[len(served)*99/100].Microseconds())/1000, "server-p99-ms")
}

// TestRequestsPerDebate debates a 20-file pull request and counts the GitHub requests: no
// resource is read twice, and writes are at most one per phase plus four.
func TestRequestsPerDebate(t *testing.T) {
	a := newApp(t)
	var diff strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&diff, "diff --git a/pkg/f%02d.go b/pkg/f%02d.go\n--- a/pkg/f%02d.go\n+++ b/pkg/f%02d.go\n@@ -1,3 +1,4 @@\n package pkg\n \n+// F%d is new.\n func F%d() {}\n", i, i, i, i, i, i)
		a.gh.Contents[fmt.Sprintf("acme/shop@abc123:pkg/f%02d.go", i)] = fmt.Sprintf("package pkg\n\n// F%d is new.\nfunc F%d() {}\n", i, i)
	}
	a.gh.PRs["acme/shop#7"] = &githubtest.PR{Title: "Twenty files", BaseRef: "main", HeadRef: "x", HeadSHA: "abc123", Diff: diff.String()}
	a.post("pull_request", "d-20", fixture(t, "pull_request.opened.json", nil), secret)
	a.srv.Queue.Wait()
	reads, writes := 0, 0
	seen := map[string]int{}
	for _, c := range a.gh.Calls() {
		if strings.HasPrefix(c.Path, "/app") {
			continue // the App's slug and installation token
		}
		if c.Method == http.MethodGet {
			reads++
			seen[c.Path+"?"+c.Query+" "+c.Accept]++
		} else {
			writes++
		}
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("%s read %d times", k, n)
		}
	}
	phases := 7
	if writes > phases+4 {
		t.Errorf("writes = %d, want at most %d", writes, phases+4)
	}
	t.Logf("GitHub requests for a 20-file pull request: %d reads, %d writes", reads, writes)
}
