// Package worker sends order confirmations in the background.
package worker

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Notifier posts a confirmation for each order ID it is given to a webhook.
type Notifier struct {
	URL    string
	Client *http.Client

	mu     sync.Mutex
	sent   map[int64]time.Time
	failed int
}

// NewNotifier returns a Notifier posting to url.
func NewNotifier(url string) *Notifier {
	return &Notifier{URL: url, Client: &http.Client{Timeout: 10 * time.Second}, sent: map[int64]time.Time{}}
}

// Run posts the confirmations of the IDs received on ids until ids is closed or ctx ends, with at
// most workers requests at a time.
func (n *Notifier) Run(ctx context.Context, ids <-chan int64, workers int) {
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range ids {
				if err := n.post(ctx, id); err != nil {
					n.mu.Lock()
					n.failed++
					n.mu.Unlock()
					continue
				}
				n.mu.Lock()
				n.sent[id] = time.Now()
				n.mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func (n *Notifier) post(ctx context.Context, id int64) error {
	body := strings.NewReader(fmt.Sprintf(`{"order":%d}`, id))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.URL, body)
	if err != nil {
		return fmt.Errorf("confirming order %d: %w", id, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := n.Client.Do(req)
	if err != nil {
		return fmt.Errorf("confirming order %d: %w", id, err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16)); err != nil {
		return fmt.Errorf("confirming order %d: %w", id, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("confirming order %d: status %s", id, resp.Status)
	}
	return nil
}

// Failed counts the confirmations that could not be sent.
func (n *Notifier) Failed() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.failed
}
