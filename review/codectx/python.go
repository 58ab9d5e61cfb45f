package codectx

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"os/exec"
	"strconv"
	"time"

	"github.com/rs/zerolog/log"
)

// pyScript reads Python files with Python's own ast module (see python_scopes.py).
//
//go:embed python_scopes.py
var pyScript string

// python3 is the interpreter pythonScopes runs; without it, the indentation scanner reads the
// files (tests name a missing one).
var python3 = "python3"

// Limits of the python3 process: its address space and its time for every file of a change.
const (
	pyMemoryBytes = 1 << 30
	pyTimeout     = 20 * time.Second
)

type pyScope struct {
	Name     string   `json:"name"`
	Label    string   `json:"label"`
	Function bool     `json:"function"`
	Start    int      `json:"start"`
	End      int      `json:"end"`
	Calls    []string `json:"calls"`
}

type pyResult struct {
	Path   string    `json:"path"`
	Scopes []pyScope `json:"scopes"`
	Error  string    `json:"error"`
}

// pythonScopes reads the Python files paths of src through python3's ast in one process; a file
// python3 did not answer for (no python3, a crash, the time ran out) is read by the indentation
// scanner, which follows Python's rules for logical lines.
func pythonScopes(ctx context.Context, paths []string, src map[string][]byte) map[string]parsed {
	out := map[string]parsed{}
	var in []map[string]string
	for _, p := range paths {
		if len(src[p]) > MaxFileBytes {
			out[p] = parsed{err: "larger than 1 MiB, not parsed"}
			continue
		}
		in = append(in, map[string]string{"path": p, "source": string(src[p])})
	}
	if len(in) == 0 {
		return out
	}
	if bin, err := exec.LookPath(python3); err == nil {
		runPython(ctx, bin, in, out)
	}
	for _, f := range in {
		if _, ok := out[f["path"]]; !ok {
			out[f["path"]] = parsed{scopes: capScopes(pyIndentScopes(f["path"], []byte(f["source"])))}
		}
	}
	return out
}

// runPython stores in out what python3 answered for each file.
func runPython(ctx context.Context, bin string, in []map[string]string, out map[string]parsed) {
	data, err := json.Marshal(in)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, pyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-I", "-c", pyScript, strconv.Itoa(pyMemoryBytes), strconv.Itoa(MaxScopes))
	cmd.Stdin = bytes.NewReader(data)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		log.Warn().Err(err).Int("files", len(in)).Msg("python3 stopped reading the code around the change; the rest is read by indentation")
	}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var r pyResult
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Path == "" {
			continue
		}
		if r.Error != "" {
			out[r.Path] = parsed{err: "python: " + r.Error}
			continue
		}
		scopes := make([]Scope, 0, len(r.Scopes))
		for _, s := range r.Scopes {
			scopes = append(scopes, Scope{Path: r.Path, Name: s.Name, Label: s.Label, Function: s.Function, Start: s.Start, End: s.End, Calls: s.Calls})
		}
		out[r.Path] = parsed{scopes: capScopes(scopes)}
	}
}
