package database

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Webhook settings.
var (
	SkipTLSVerify  bool
	DeliverTimeout = 15 * time.Second
)

// HookTask is one delivery of a webhook payload.
type HookTask struct {
	UUID        string
	URL         string
	Signature   string
	EventType   string
	PayloadJSON string
	IsSucceed   bool
	Status      int
}

func (t *HookTask) deliver() error {
	client := &http.Client{
		Timeout:   DeliverTimeout,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: SkipTLSVerify}},
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			// The webhook target is configured by the user, so a redirect would silently
			// retarget the signed payload (to an internal address, say). Refuse all redirects.
			return fmt.Errorf("refusing to follow webhook redirect to %q", req.URL.Redacted())
		},
	}
	req, err := http.NewRequest("POST", t.URL, strings.NewReader(t.PayloadJSON))
	if err != nil {
		return fmt.Errorf("new webhook request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Gogs-Delivery", t.UUID)
	req.Header.Set("X-Gogs-Signature", t.Signature)
	req.Header.Set("X-Gogs-Event", t.EventType)
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("deliver webhook %s: %w", t.UUID, err)
	}
	defer resp.Body.Close()
	t.Status = resp.StatusCode
	t.IsSucceed = resp.StatusCode/100 == 2
	return nil
}
