package debatebot_test

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// actionYML is the part of action.yml that GitHub runs.
type actionYML struct {
	Name   string `yaml:"name"`
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Image string `yaml:"image"`
		Steps []struct {
			Name  string            `yaml:"name"`
			Uses  string            `yaml:"uses"`
			Run   string            `yaml:"run"`
			Shell string            `yaml:"shell"`
			With  map[string]string `yaml:"with"`
			Env   map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

var (
	rePinned     = regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`)
	reInputUse   = regexp.MustCompile(`\$\{\{\s*inputs\.([\w-]+)\s*\}\}`)
	reExprInRun  = regexp.MustCompile(`\$\{\{`)
	actionInputs = map[string]string{
		// The Action's contract: each input and the environment variable debatebot reads it from.
		"github-token": "GITHUB_TOKEN", "api-key": "OPENAI_API_KEY", "base-url": "OPENAI_BASE_URL",
		"model": "DEBATEBOT_MODEL", "config": "DEBATEBOT_REPO_CONFIG", "allowed-bots": "DEBATEBOT_ALLOWED_BOTS",
	}
)

// TestActionIsCompositeAndPinned: the Action builds no image per run: it is a composite action
// whose every step that uses another action is pinned to a commit, every run step names its
// shell and takes no expression into its script (only through env), every input is used, by
// the environment variable debatebot reads, and the last step runs `debatebot action`.
func TestActionIsCompositeAndPinned(t *testing.T) {
	data, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionYML
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" || a.Runs.Image != "" || len(a.Runs.Steps) == 0 {
		t.Fatalf("action.yml runs %q (image %q, %d steps); want a composite action", a.Runs.Using, a.Runs.Image, len(a.Runs.Steps))
	}
	var inputs []string
	for name := range a.Inputs {
		inputs = append(inputs, name)
	}
	slices.Sort(inputs)
	var want []string
	for name := range actionInputs {
		want = append(want, name)
	}
	slices.Sort(want)
	if !slices.Equal(inputs, want) {
		t.Errorf("inputs %v, want the Action's contract %v", inputs, want)
	}
	used := map[string]string{}
	for i, s := range a.Runs.Steps {
		switch {
		case s.Uses != "" && s.Run != "":
			t.Errorf("step %d (%s) both uses and runs", i, s.Name)
		case s.Uses != "":
			if !rePinned.MatchString(s.Uses) {
				t.Errorf("step %d (%s) uses %q: pin it to a full commit SHA", i, s.Name, s.Uses)
			}
		case s.Run != "":
			if s.Shell == "" {
				t.Errorf("step %d (%s) has no shell (a composite action's run step needs one)", i, s.Name)
			}
			if reExprInRun.MatchString(s.Run) {
				t.Errorf("step %d (%s) puts an expression into its script; pass it through env", i, s.Name)
			}
		default:
			t.Errorf("step %d (%s) neither uses nor runs", i, s.Name)
		}
		for k, v := range s.Env {
			for _, m := range reInputUse.FindAllStringSubmatch(v, -1) {
				used[m[1]] = k
			}
		}
		for _, v := range s.With {
			for _, m := range reInputUse.FindAllStringSubmatch(v, -1) {
				used[m[1]] = "with"
			}
		}
	}
	for name, env := range actionInputs {
		if used[name] != env {
			t.Errorf("input %s reaches debatebot as %q, want the environment variable %s", name, used[name], env)
		}
	}
	last := a.Runs.Steps[len(a.Runs.Steps)-1]
	if !strings.HasSuffix(strings.TrimSpace(last.Run), "debatebot\" action") {
		t.Errorf("the last step runs %q, want debatebot action", last.Run)
	}
	var build string
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "go build") || strings.Contains(s.Run, "go install") {
			build = s.Run
		}
		if strings.HasPrefix(s.Uses, "actions/setup-go@") && (s.With["cache"] != "true" || !strings.Contains(s.With["cache-dependency-path"], "github.action_path")) {
			t.Errorf("setup-go does not keep the module cache keyed on the action's go.sum: %v", s.With)
		}
	}
	if !strings.Contains(build, "./cmd/debatebot") {
		t.Errorf("no step builds debatebot from the action's checkout")
	}
}

// TestDockerActionImageHasNoUser: GitHub runs a Docker action as the image's default user and
// says its Dockerfile must not set USER; the image's action target (and every stage it is built
// on) sets none, while the App's default target runs as a non-root user.
func TestDockerActionImageHasNoUser(t *testing.T) {
	f, err := os.Open("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type stage struct {
		from string
		user bool
	}
	stages, last := map[string]*stage{}, ""
	reFrom := regexp.MustCompile(`(?i)^FROM\s+(\S+)(?:\s+AS\s+(\S+))?`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := reFrom.FindStringSubmatch(line); m != nil {
			last = m[2]
			if last == "" {
				last = "(unnamed)"
			}
			stages[last] = &stage{from: m[1]}
			continue
		}
		if strings.HasPrefix(strings.ToUpper(line), "USER ") && last != "" {
			stages[last].user = true
		}
	}
	if stages["action"] == nil {
		t.Fatal("the Dockerfile has no action target (docker build --target action) for a prebuilt Docker action")
	}
	for name := "action"; stages[name] != nil; name = stages[name].from {
		if stages[name].user {
			t.Errorf("stage %s, which the action image is built on, sets USER", name)
		}
	}
	if s := stages[last]; last == "action" || s == nil || !s.user {
		t.Errorf("the default target (%s) should be the App's, as a non-root user", last)
	}
}
