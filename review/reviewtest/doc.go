// Package reviewtest is for tests of the review packages: it parses diffs into changes, gathers
// evidence with the default analyzers and writes it in a short form, holds offline debates with
// a fixed clock, and points a GitHub client at the fake GitHub of review/githubtest, seeded with
// the bundled example pull request. Changes built without the diff parser are in
// review/change/changetest.
package reviewtest
