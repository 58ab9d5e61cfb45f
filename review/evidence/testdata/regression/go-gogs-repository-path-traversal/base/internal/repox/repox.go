package repox

import (
	"path/filepath"
	"strings"

	"example.com/gogs/internal/conf"
	"example.com/gogs/internal/pathx"
)

// UserPath returns the absolute path for storing user repositories.
func UserPath(user string) string {
	return filepath.Join(conf.RepositoryRoot, pathx.Clean(strings.ToLower(user)))
}

// RepositoryPath returns the absolute path using given user and repository name.
func RepositoryPath(owner, repo string) string {
	return filepath.Join(UserPath(owner), pathx.Clean(strings.ToLower(repo))+".git")
}
