package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
)

// DataDir is debatebot's folder in the user's data directory, where the command line keeps its
// debates and serve the App's credentials from the setup page: $XDG_DATA_HOME/debatebot when
// XDG_DATA_HOME is an absolute path (the XDG Base Directory rules ignore a relative one), else
// the system's place: ~/.local/share/debatebot on Linux and the BSDs, ~/Library/Application
// Support/debatebot on macOS, %LocalAppData%\debatebot on Windows. getenv is os.Getenv except in
// tests. It is never the working directory: without a home, it is an error.
func DataDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "debatebot"), nil
	}
	if runtime.GOOS == "windows" {
		if d := getenv("LocalAppData"); d != "" && filepath.IsAbs(d) {
			return filepath.Join(d, "debatebot"), nil
		}
		return "", errors.New("cannot find the user's data directory: %LocalAppData% is not set")
	}
	home := getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		return "", fmt.Errorf("cannot find the user's data directory: neither XDG_DATA_HOME nor HOME is an absolute path (HOME=%q)", home)
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return filepath.Join(home, "Library", "Application Support", "debatebot"), nil
	}
	return filepath.Join(home, ".local", "share", "debatebot"), nil
}
