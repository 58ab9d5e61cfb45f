// Package redact finds secrets in text and masks them: gitleaks' detector with its default
// rules, plus short literal signing keys and passwords, for the secrets analyzer; and the
// redaction of every text that leaves the process (comments, logs, transcripts).
package redact
