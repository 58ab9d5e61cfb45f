package review

import "github.com/debatebot/debatebot/review/evidence"

// The change model and evidence gathering live in review/evidence; review reads changes into that
// model (diff.go, git.go, github.go, apply.go) and debates what the analyzers found. These names
// keep review's API whole for its callers.
type (
	Change     = evidence.Change
	File       = evidence.File
	Hunk       = evidence.Hunk
	Line       = evidence.Line
	LineKind   = evidence.LineKind
	FileStatus = evidence.FileStatus
	Rule       = evidence.Rule
	Analyzer   = evidence.Analyzer
	Scan       = evidence.Scan
)

// Kinds of lines and statuses of files.
const (
	Context        = evidence.Context
	Added          = evidence.Added
	Deleted        = evidence.Deleted
	StatusAdded    = evidence.StatusAdded
	StatusModified = evidence.StatusModified
	StatusDeleted  = evidence.StatusDeleted
	StatusRenamed  = evidence.StatusRenamed
)

// Stakeholder names of the built-in perspectives.
const (
	Security        = evidence.Security
	Performance     = evidence.Performance
	Architecture    = evidence.Architecture
	Maintainability = evidence.Maintainability
)

// Rules is the catalog of every rule the analyzers report.
var Rules = evidence.Rules

// Functions of the change model and of evidence gathering.
var (
	LanguageOf       = evidence.LanguageOf
	IsLanguage       = evidence.IsLanguage
	Languages        = evidence.Languages
	IsTestPath       = evidence.IsTestPath
	IsGeneratedPath  = evidence.IsGeneratedPath
	IsProcess        = evidence.IsProcess
	NewScan          = evidence.NewScan
	DefaultAnalyzers = evidence.DefaultAnalyzers
	Gather           = evidence.Gather
	GatherWithNotes  = evidence.GatherWithNotes
	Redact           = evidence.Redact
	RedactingWriter  = evidence.RedactingWriter
	clip             = evidence.Clip
)
