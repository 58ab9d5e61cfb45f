// Package compare is the comparison of a change's base and head in every language (Go, Python,
// JavaScript, TypeScript): each changed function's statements in base and head are matched and
// the protections the change removed or weakened are reported (removed guards and checks,
// weakened conditions, dropped releases, contexts and locks, work moved into loops,
// catastrophic regular expressions, nullish checks and timers dropped). It reads whole trees
// when the change has them and the diff's hunks otherwise.
package compare
