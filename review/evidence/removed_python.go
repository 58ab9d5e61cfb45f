package evidence

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// pyScript is the Python half of the Python front end: it parses with Python's own ast module
// and prints the comparison's form of each file (see removed_python.py).
//
//go:embed removed_python.py
var pyScript string

// pySource is one file for pyScript.
type pySource struct {
	Path   string `json:"path"`
	Source string `json:"source"`
}

// pyTimeout bounds one run of pyScript; parsing a change's files takes well under a second.
const pyTimeout = 60 * time.Second

// errNoPython says that python3 is not installed; the Python files are then not compared.
var errNoPython = errors.New("python3 is not installed (Debian: apt-get install python3)")

// pyIR parses Python files with python3 in one run and returns their forms in the same order.
func pyIR(ctx context.Context, files []pySource) ([]*irFile, error) {
	if len(files) == 0 {
		return nil, nil
	}
	bin, err := exec.LookPath("python3")
	if err != nil {
		return nil, errNoPython
	}
	in, err := json.Marshal(files)
	if err != nil {
		return nil, fmt.Errorf("encoding the Python sources: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, pyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-I", "-c", pyScript)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("python3 could not parse the changed Python files: %w: %s", err, clip(strings.TrimSpace(stderr.String()), 300))
	}
	var out []*irFile
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("reading python3's parse of the changed Python files: %w", err)
	}
	if len(out) != len(files) {
		return nil, fmt.Errorf("python3 parsed %d of %d Python files", len(out), len(files))
	}
	for _, f := range out {
		for _, fn := range f.Funcs {
			fn.file = f
		}
	}
	return out, nil
}
