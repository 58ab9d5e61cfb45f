package caddycmd

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

const downloadPath = "https://caddyserver.com/api/download"

// downloadBuild asks the build server for a custom binary; on success the caller reads
// and closes the body.
func downloadBuild(qs url.Values) (*http.Response, error) {
	resp, err := http.Get(fmt.Sprintf("%s?%s", downloadPath, qs.Encode()))
	if err != nil {
		return nil, fmt.Errorf("secure request failed: %v", err)
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		var details struct {
			StatusCode int `json:"status_code"`
			Error      struct {
				Message string `json:"message"`
				ID      string `json:"id"`
			} `json:"error"`
		}
		err2 := json.NewDecoder(resp.Body).Decode(&details)
		if err2 != nil {
			return nil, fmt.Errorf("download and error decoding failed: HTTP %d: %v", resp.StatusCode, err2)
		}
		return nil, fmt.Errorf("download failed: HTTP %d: %s: %s (id=%s)", resp.StatusCode, http.StatusText(resp.StatusCode), details.Error.Message, details.Error.ID)
	}
	return resp, nil
}
