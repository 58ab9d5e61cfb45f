package config

import (
	"strings"
	"testing"
	"time"
)

func TestShutdownTimeout(t *testing.T) {
	env := map[string]string{"GITHUB_APP_INTEGRATION_ID": "1", "GITHUB_APP_WEBHOOK_SECRET": "s", "GITHUB_APP_PRIVATE_KEY": pemKey}
	get := func(k string) string { return env[k] }
	s, err := LoadServer(get, nil)
	if err != nil || s.ShutdownTimeout != DefaultShutdownTimeout {
		t.Fatalf("default shutdown timeout = %v (%v), want %s", s, err, DefaultShutdownTimeout)
	}
	env["DEBATEBOT_SHUTDOWN_TIMEOUT"] = "2s"
	if s, err := LoadServer(get, nil); err != nil || s.ShutdownTimeout != 2*time.Second {
		t.Fatalf("DEBATEBOT_SHUTDOWN_TIMEOUT=2s gives %v (%v)", s, err)
	}
	for _, bad := range []string{"0s", "-1s", "soon"} {
		env["DEBATEBOT_SHUTDOWN_TIMEOUT"] = bad
		if _, err := LoadServer(get, nil); err == nil || !strings.Contains(err.Error(), "DEBATEBOT_SHUTDOWN_TIMEOUT: \""+bad+"\" is not a positive duration") {
			t.Errorf("DEBATEBOT_SHUTDOWN_TIMEOUT=%s: error %v", bad, err)
		}
	}
}
