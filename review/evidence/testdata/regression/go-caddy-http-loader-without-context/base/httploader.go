package caddyconfig

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// HTTPLoader loads Caddy's configuration from an HTTP endpoint.
type HTTPLoader struct {
	Method  string
	URL     string
	Headers http.Header
	Timeout time.Duration
}

// LoadConfig fetches the configuration; ctx is cancelled when the config is unloaded or the
// process stops.
func (hl HTTPLoader) LoadConfig(ctx context.Context) ([]byte, error) {
	method := hl.Method
	if method == "" {
		method = http.MethodGet
	}

	req, err := http.NewRequestWithContext(ctx, method, hl.URL, nil)
	if err != nil {
		return nil, err
	}
	req.Header = hl.Headers.Clone()

	client := &http.Client{Timeout: hl.Timeout}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("server responded with HTTP %d", resp.StatusCode)
	}
	return io.ReadAll(resp.Body)
}
