// Package render turns a debate into text: the transcript in Markdown, the summary comment, the
// decision and progress comments, the inline review's comments, SARIF, and the standing findings
// and fingerprints they share.
package render
