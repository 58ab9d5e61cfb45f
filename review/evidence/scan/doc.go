// Package scan is one evidence-gathering pass over a change: the Analyzer interface, the Scan
// analyzers share parsed files and trees through and report into, the Finding record, the
// processors that keep what is distinct (duplicates folded, process notes capped, one defect
// found by several analyzers merged, ordered by severity), Gather, which runs analyzers and
// returns the processed findings, and the timings of the gathering. Nothing here knows the
// debate: the package that runs it (review) turns the findings into its evidence.
//
// The analyzers themselves are in review/evidence (the registry and the analyses of one tree)
// and its sub-packages compare and external.
package scan
