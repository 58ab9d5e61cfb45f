package dialectic

import (
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// environment are the files that make up where a CI task runs rather than the code it checks:
// the workflows and actions, dependency manifests and lockfiles, toolchain pins and container
// definitions. A change to one is seed 000's "environment changed", a significant change of
// context that starts a task's failure count afresh. Globs match the whole path; ones without a
// slash match a file of that name in any directory.
var environment = []string{
	".github/workflows/**", ".github/actions/**", "action.yml", "action.yaml",
	"go.mod", "go.sum", "go.work", "go.work.sum",
	"package.json", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "pnpm-workspace.yaml", ".npmrc", ".yarnrc.yml",
	"requirements*.txt", "constraints*.txt", "pyproject.toml", "poetry.lock", "uv.lock", "Pipfile", "Pipfile.lock", "setup.py", "setup.cfg", "tox.ini", "noxfile.py",
	"Cargo.toml", "Cargo.lock", "rust-toolchain", "rust-toolchain.toml",
	"Gemfile", "Gemfile.lock", "*.gemspec", "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "gradle.properties", "*.csproj", "packages.lock.json", "composer.json", "composer.lock",
	".tool-versions", ".nvmrc", ".node-version", ".python-version", ".ruby-version", ".go-version",
	"Dockerfile", "Dockerfile.*", "*.Dockerfile", "docker-compose*.yml", "docker-compose*.yaml", "compose.yml", "compose.yaml", ".devcontainer/**",
	"Makefile", "flake.nix", "flake.lock",
}

// Environment returns the files of changed that belong to CI's environment (see environment),
// in the order given.
func Environment(changed []string) []string {
	var out []string
	for _, f := range changed {
		f = strings.TrimPrefix(f, "./")
		if slices.ContainsFunc(environment, func(g string) bool {
			if strings.Contains(g, "/") {
				return doublestar.MatchUnvalidated(g, f)
			}
			return doublestar.MatchUnvalidated(g, path.Base(f))
		}) {
			out = append(out, f)
		}
	}
	return out
}
