package compare

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/rs/zerolog/log"
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

// Limits of the Python parser process. A file is parsed by python3 with its address space capped
// at pyMemoryBytes and its time at pyFileTimeout; a file that exceeds either, or makes python3
// die, is not compared and named, and the files after it are parsed in a new process, at most
// pyMaxRestarts times; all of a change's files share pyTimeout.
const (
	pyTimeout     = 60 * time.Second
	pyFileTimeout = 10 * time.Second
	pyMemoryBytes = 1 << 30
	pyMaxRestarts = 4
	// pyMaxLine bounds one file's form as python3 prints it.
	pyMaxLine = 64 << 20
)

// errNoPython says that python3 is not installed; the Python files are then not compared.
var errNoPython = errors.New("python3 is not installed (Debian: apt-get install python3)")

// pyIR parses Python files with python3 and returns their forms in the same order. One file
// costs only itself: a file python3 cannot parse within the limits is returned with Skip saying
// why, and the others are still parsed. The error is for a python3 that cannot run at all.
func pyIR(ctx context.Context, files []pySource) ([]*irFile, error) {
	if len(files) == 0 {
		return nil, nil
	}
	bin, err := exec.LookPath("python3")
	if err != nil {
		return nil, errNoPython
	}
	ctx, cancel := context.WithTimeout(ctx, pyTimeout)
	defer cancel()
	out := make([]*irFile, len(files))
	next, restarts := 0, 0
	for next < len(files) {
		n, err := pyRun(ctx, bin, files[next:], out[next:])
		if errors.Is(err, errNotReady) && next == 0 && restarts == 0 {
			return nil, err
		}
		next += n
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			pySkipRest(files[next:], out[next:], "the time for parsing Python ("+pyTimeout.String()+") ran out")
			break
		}
		// The file python3 was on when it stopped is the culprit.
		log.Warn().Err(err).Str("path", files[next].Path).Msg("python3 stopped on a file; parsing the rest without it")
		out[next] = &irFile{Path: files[next].Path, Imports: map[string]string{}, Skip: scan.Clip(err.Error(), 200)}
		next++
		if restarts++; restarts > pyMaxRestarts && next < len(files) {
			pySkipRest(files[next:], out[next:], fmt.Sprintf("python3 stopped on %d earlier files", restarts))
			break
		}
	}
	return out, nil
}

func pySkipRest(files []pySource, out []*irFile, why string) {
	for i, f := range files {
		out[i] = &irFile{Path: f.Path, Imports: map[string]string{}, Skip: why}
	}
}

// errNotReady says that python3 stopped before it read the files (too old, or not runnable).
var errNotReady = errors.New("python3 could not start the parser")

// pyRun parses files in one python3 process, storing each form in out as it arrives, and
// returns how many it stored; an error says why the process stopped before the last.
func pyRun(ctx context.Context, bin string, files []pySource, out []*irFile) (int, error) {
	in, err := json.Marshal(files)
	if err != nil {
		return 0, fmt.Errorf("encoding the Python sources: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// python3's own alarm, a little shorter than the watchdog, ends a slow walk of the tree
	// with the file named, without losing the process.
	secs := strconv.FormatFloat(pyFileTimeout.Seconds()*3/4, 'f', -1, 64)
	cmd := exec.CommandContext(ctx, bin, "-I", "-c", pyScript, strconv.Itoa(pyMemoryBytes), secs)
	cmd.Stdin = bytes.NewReader(in)
	stderr := &tailBuffer{max: 4096}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, fmt.Errorf("starting python3: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting python3: %w", err)
	}
	// A watchdog kills the process when one file takes longer than pyFileTimeout (plus the
	// time to read the input, for the first): python3's own alarm cannot stop its C parser.
	var slow atomic.Bool
	dog := time.AfterFunc(2*pyFileTimeout, func() { slow.Store(true); cancel() })
	defer dog.Stop()
	n, readErr := pyRead(stdout, files, out, func() { dog.Reset(pyFileTimeout) })
	if readErr != nil {
		cancel() // the process's output is not to be trusted further
	}
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	dog.Stop()
	switch {
	case n == len(files) && readErr == nil:
		return n, nil
	case errors.Is(readErr, errNotReady):
		return 0, fmt.Errorf("%w: %v: %s", errNotReady, waitErr, scan.Clip(strings.TrimSpace(stderr.String()), 300))
	case slow.Load():
		return n, fmt.Errorf("parsing took longer than %s", pyFileTimeout)
	case readErr != nil && !errors.Is(readErr, io.EOF):
		return n, readErr
	case waitErr != nil:
		return n, fmt.Errorf("python3 stopped: %w: %s", waitErr, scan.Clip(strings.TrimSpace(stderr.String()), 200))
	}
	return n, errors.New("python3 stopped before the file was parsed")
}

// pyRead reads pyScript's output: the ready line, then one form per file in files' order. It
// calls each after every line, and returns how many forms it stored in out; io.EOF when the
// output ended early.
func pyRead(r io.Reader, files []pySource, out []*irFile, each func()) (int, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	line, err := readLine(br, pyMaxLine)
	if err != nil || !bytes.Equal(bytes.TrimSpace(line), []byte(`{"ready": true}`)) {
		return 0, errNotReady
	}
	each()
	for i := range files {
		line, err := readLine(br, pyMaxLine)
		if err != nil {
			return i, err
		}
		f, err := pyDecode(line, files[i].Path)
		if err != nil {
			return i, err
		}
		out[i] = f
		each()
	}
	return len(files), nil
}

// readLine reads one line of at most max bytes; io.EOF when the input ends first.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > max {
			return nil, fmt.Errorf("the parse is larger than %d MiB", max>>20)
		}
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, io.EOF
		default:
			return nil, fmt.Errorf("reading python3's output: %w", err)
		}
	}
}

// pyDecode reads one file's form as pyScript prints it, checking what the comparison relies
// on: the path asked for, and indexes (a node's parent, a call's outer call) that point inside.
func pyDecode(line []byte, path string) (*irFile, error) {
	var f irFile
	if err := json.Unmarshal(line, &f); err != nil {
		return nil, fmt.Errorf("reading python3's parse: %w", err)
	}
	if f.Path != path {
		return nil, fmt.Errorf("python3 answered for %q, not %q", scan.Clip(f.Path, 100), scan.Clip(path, 100))
	}
	if f.Imports == nil {
		f.Imports = map[string]string{}
	}
	funcs := f.Funcs[:0]
	for _, fn := range f.Funcs {
		if fn == nil {
			continue
		}
		if err := checkFunc(fn); err != nil {
			return nil, fmt.Errorf("python3's parse of %s: %w", scan.Clip(path, 100), err)
		}
		fn.file = &f
		funcs = append(funcs, fn)
	}
	f.Funcs = funcs
	return &f, nil
}

// checkFunc checks the indexes of a function's form.
func checkFunc(fn *irFunc) error {
	for i, n := range fn.Nodes {
		if n == nil {
			return fmt.Errorf("%s: node %d is empty", fn.Name, i)
		}
		if n.Parent < -1 || n.Parent >= i {
			return fmt.Errorf("%s: node %d has parent %d", fn.Name, i, n.Parent)
		}
		for j, c := range n.Calls {
			if c.Outer < -1 || c.Outer >= j {
				return fmt.Errorf("%s: call %d of node %d has outer call %d", fn.Name, j, i, c.Outer)
			}
		}
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
