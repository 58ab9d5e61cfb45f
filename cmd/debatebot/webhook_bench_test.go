package main

import (
	"bufio"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
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
	bin := filepath.Join(b.TempDir(), "debatebot")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
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
						var body io.Reader = &zeroBody{n: size}
						if mode == "chunked" {
							head += "Transfer-Encoding: chunked\r\n\r\n"
							body = &chunkedBody{src: body}
						} else {
							head += "Content-Length: " + strconv.Itoa(size) + "\r\n\r\n"
						}
						status, d := postRaw(addr, head, body)
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
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "serve")
	cmd.Env = []string{
		"GITHUB_V3_API_URL=" + gh.URL + "/", "GITHUB_APP_INTEGRATION_ID=1", "GITHUB_APP_WEBHOOK_SECRET=s3cret",
		"GITHUB_APP_PRIVATE_KEY=" + string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})),
		"DEBATEBOT_DATABASE_URL=sqlite:" + filepath.Join(b.TempDir(), "debatebot.db"), "DEBATEBOT_ADDR=" + addr,
		"DEBATEBOT_LOG_LEVEL=error",
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

// postRaw writes head, then streams body until the server answers, and returns the status (0
// when there was none) and the time to the answer.
func postRaw(addr, head string, body io.Reader) (int, time.Duration) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, 0
	}
	defer conn.Close()
	start := time.Now()
	type answer struct {
		status int
		at     time.Duration
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			answered <- answer{0, time.Since(start)}
			return
		}
		resp.Body.Close()
		answered <- answer{resp.StatusCode, time.Since(start)}
	}()
	if _, err := io.WriteString(conn, head); err == nil {
		buf := make([]byte, 256<<10)
	write:
		for {
			select {
			case a := <-answered:
				return a.status, a.at
			default:
			}
			n, rerr := body.Read(buf)
			_ = conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
			if _, err := conn.Write(buf[:n]); err != nil || rerr != nil {
				break write
			}
		}
	}
	a := <-answered
	return a.status, a.at
}

type zeroBody struct{ n int64 }

func (z *zeroBody) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n)
	clear(p[:k])
	z.n -= k
	return int(k), nil
}

type chunkedBody struct {
	src  io.Reader
	done bool
	buf  []byte
}

func (c *chunkedBody) Read(p []byte) (int, error) {
	if len(c.buf) == 0 {
		if c.done {
			return 0, io.EOF
		}
		data := make([]byte, 64<<10)
		n, err := c.src.Read(data)
		if n > 0 {
			c.buf = append(fmt.Appendf(nil, "%x\r\n", n), data[:n]...)
			c.buf = append(c.buf, "\r\n"...)
		}
		if err == io.EOF {
			c.done, c.buf = true, append(c.buf, "0\r\n\r\n"...)
		}
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}
