package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debatebot/debatebot/handlers/webhooktest"
	"github.com/debatebot/debatebot/review/githubtest"
)

// BenchmarkOversizedDeliveries posts 20 unsigned 100 MB bodies at once to a real `debatebot
// serve` process, as an attacker without the webhook secret would, and reports the server's
// peak resident memory (VmHWM) and how long each refusal took. With a declared Content-Length
// the body is refused with 413 before it is read; a chunked body is read within the webhook
// memory budget up to the 25 MiB cap. The target: peak RSS under 200 MB.
//
//	go test ./cmd/debatebot -run '^$' -bench OversizedDeliveries -benchtime 3x
func BenchmarkOversizedDeliveries(b *testing.B) {
	bin := buildBinary(b)
	for _, mode := range []string{"content-length", "chunked"} {
		b.Run(mode, func(b *testing.B) {
			addr, pid := startServe(b, bin)
			base := peakRSS(b, pid)
			const parallel, size = 20, 100_000_000
			var mu sync.Mutex
			var took []time.Duration
			statuses := map[int]int{}
			b.ResetTimer()
			for range b.N {
				var wg sync.WaitGroup
				for i := range parallel {
					wg.Go(func() {
						head := "POST /api/github/hook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
							"X-GitHub-Event: pull_request\r\nX-GitHub-Delivery: big-" + strconv.Itoa(i) + "\r\nX-Hub-Signature-256: sha256=00\r\n"
						var body io.Reader = webhooktest.Zeros(size)
						if mode == "chunked" {
							head += "Transfer-Encoding: chunked\r\n\r\n"
							body = webhooktest.Chunked(body)
						} else {
							head += "Content-Length: " + strconv.Itoa(size) + "\r\n\r\n"
						}
						ans, _ := webhooktest.Post(addr, head, body)
						status, d := ans.Status, ans.Took
						mu.Lock()
						took = append(took, d)
						statuses[status]++
						mu.Unlock()
					})
				}
				wg.Wait()
			}
			b.StopTimer()
			peak := peakRSS(b, pid)
			slices.Sort(took)
			b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
			b.ReportMetric(float64(base)/(1<<20), "idle-RSS-MB")
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms-to-answer")
			b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "max-ms-to-answer")
			b.ReportMetric(float64(statuses[http.StatusRequestEntityTooLarge])/float64(len(took)), "share-413")
			b.Logf("%s: answers %v, peak RSS %.1f MB (idle %.1f MB)", mode, statuses, float64(peak)/(1<<20), float64(base)/(1<<20))
			if peak > 200<<20 {
				b.Errorf("peak RSS %.1f MB, want under 200 MB", float64(peak)/(1<<20))
			}
			for status := range statuses {
				if status != http.StatusRequestEntityTooLarge && status != http.StatusServiceUnavailable {
					b.Errorf("an unsigned oversized body was answered %d (answers %v)", status, statuses)
				}
			}
		})
	}
}

// startServe runs the binary as `serve` against a fake GitHub and returns its address and pid.
func startServe(b *testing.B, bin string) (string, int) {
	gh := githubtest.New(b)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "serve")
	cmd.Env = []string{
		"GITHUB_V3_API_URL=" + gh.URL + "/", "GITHUB_APP_INTEGRATION_ID=1", "GITHUB_APP_WEBHOOK_SECRET=s3cret",
		"GITHUB_APP_PRIVATE_KEY=" + testAppKey(b),
		"DEBATEBOT_DATABASE_URL=sqlite:" + filepath.Join(b.TempDir(), "debatebot.db"), "DEBATEBOT_ADDR=" + addr,
		"DEBATEBOT_LOG_LEVEL=error", "DEBATEBOT_GOPROXY=off",
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return addr, cmd.Process.Pid
		}
	}
	b.Fatal("serve did not come up")
	return "", 0
}

// peakRSS is the process's peak resident set size (VmHWM) in bytes.
func peakRSS(b *testing.B, pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmHWM in /proc/PID/status")
	return 0
}
