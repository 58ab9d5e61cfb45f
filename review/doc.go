// Package review reads a change (a unified diff, a git range, a pull request, the trees of its
// base and head) and runs its debate: evidence from the analyzers, the agents of review/agents,
// the engine of toulmin. Rendering is review/render's, posting to GitHub review/publish's, the
// model client review/llm's.
package review
