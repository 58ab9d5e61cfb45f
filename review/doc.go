// Package review is everything about reviewing a change: reading it (a unified diff, a git range,
// later a pull request), gathering evidence with analyzers, the stakeholder agents, and rendering
// the transcript and decision record.
package review
