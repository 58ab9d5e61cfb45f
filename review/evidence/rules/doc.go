// Package rules is the catalog of what the analyzers report: the rules (who raises a finding,
// how serious it is, the warrant, backing and fix an argument built on it uses), the checks of
// the maintained analyzers and the external tools, their severities and topics, and the names of
// the analyzers findings come from. The analyzers' packages complete the catalog when they are
// linked in (the checks they register at init).
package rules
