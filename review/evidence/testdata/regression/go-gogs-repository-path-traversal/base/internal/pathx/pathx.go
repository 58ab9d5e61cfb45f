package pathx

import (
	"path"
	"strings"
)

// Clean cleans up the given path and returns a relative path that goes straight down,
// to prevent path traversal.
func Clean(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	return strings.Trim(path.Clean("/"+p), "/")
}
