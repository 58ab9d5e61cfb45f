package pull

import (
	"strings"
)

// ParseCommand reads "/debate [protocol]", "/human-review" or "/help" from the first line of a
// comment.
func ParseCommand(body string) (cmd, arg string, ok bool) {
	line := strings.TrimSpace(strings.SplitN(strings.TrimSpace(body), "\n", 2)[0])
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return "", "", false
	}
	switch fields[0] {
	case "/debate", "/human-review", "/help":
		if len(fields) > 1 {
			arg = fields[1]
		}
		return fields[0], arg, true
	}
	return "", "", false
}
