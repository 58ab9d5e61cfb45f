package getter

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Request says what to download and where.
type Request struct {
	Src    string
	Dst    string
	subDir string
}

// Getter fetches a source into a directory.
type Getter interface {
	Get(ctx context.Context, dst, src string) error
}

// Client downloads sources with a getter.
type Client struct {
	Getter Getter
}

// Get downloads req.Src into req.Dst. A source of the form url//sub/dir fetches url and
// copies only sub/dir of it.
func (c *Client) Get(ctx context.Context, req *Request) error {
	req.Src, req.subDir = sourceDirSubdir(req.Src)
	dst := req.Dst
	if req.subDir != "" {
		// Check if the subdirectory is attempting to traverse upwards, outside of
		// the cloned repository path.
		req.subDir = filepath.Clean(req.subDir)
		if containsDotDot(req.subDir) {
			return fmt.Errorf("subdirectory component contain path traversal out of the repository")
		}

		// Prevent absolute paths, remove a leading path separator from the subdirectory
		if req.subDir[0] == os.PathSeparator {
			req.subDir = req.subDir[1:]
		}

		td, err := os.MkdirTemp("", "getter")
		if err != nil {
			return fmt.Errorf("error creating temporary directory: %w", err)
		}
		defer os.RemoveAll(td)
		dst = td
	}
	if err := c.Getter.Get(ctx, dst, req.Src); err != nil {
		return err
	}
	if req.subDir != "" {
		subDir := filepath.Join(dst, req.subDir)
		return os.CopyFS(req.Dst, os.DirFS(subDir))
	}
	return nil
}

// sourceDirSubdir splits url//sub/dir into url and sub/dir.
func sourceDirSubdir(src string) (string, string) {
	stop := len(src)
	if idx := strings.Index(src, "?"); idx > -1 {
		stop = idx
	}
	offset := 0
	if idx := strings.Index(src[:stop], "://"); idx > -1 {
		offset = idx + 3
	}
	idx := strings.Index(src[offset:stop], "//")
	if idx == -1 {
		return src, ""
	}
	idx += offset
	subdir := src[idx+2:]
	src = src[:idx]
	return src, subdir
}

// containsDotDot reports whether a slash-separated path has a .. element.
func containsDotDot(v string) bool {
	if !strings.Contains(v, "..") {
		return false
	}
	for _, ent := range strings.FieldsFunc(v, isSlashRune) {
		if ent == ".." {
			return true
		}
	}
	return false
}

func isSlashRune(r rune) bool { return r == '/' || r == '\\' }
