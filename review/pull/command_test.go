package pull

import (
	"testing"
)

func TestParseCommand(t *testing.T) {
	for body, want := range map[string][2]string{
		"/debate":                    {"/debate", ""},
		"  /debate fast-track\nmore": {"/debate", "fast-track"},
		"/human-review approve":      {"/human-review", "approve"},
		"please /debate":             {"", ""},
		"/debater":                   {"", ""},
		"/help":                      {"/help", ""},
		"/debate help":               {"/debate", "help"},
		"/helpme":                    {"", ""},
	} {
		cmd, arg, _ := ParseCommand(body)
		if cmd != want[0] || arg != want[1] {
			t.Errorf("ParseCommand(%q) = %q %q, want %q %q", body, cmd, arg, want[0], want[1])
		}
	}
}
