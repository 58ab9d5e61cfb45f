package rules

import (
	"github.com/debatebot/debatebot/voting"
	"golang.org/x/tools/go/analysis"
)

// Stakeholder names of the built-in perspectives.
const (
	Security        = "security"
	Performance     = "performance"
	Architecture    = "architecture"
	Maintainability = "maintainability"
)

// Rule is what the debate knows about one kind of finding: who raises it, how serious it is, and
// the warrant, backing and fix an argument built on it uses.
type Rule struct {
	ID          string
	Stakeholder string
	Severity    voting.Severity
	Title       string
	Warrant     string
	Reference   string
	Fix         string
	// Rebuttal is the condition under which the claim would not hold.
	Rebuttal string
	// TradeOff is what the fix costs, for final arguments.
	TradeOff string
	// CWE is the weakness the rule finds ("CWE-89"), when it is a security rule. Two analyzers'
	// findings of the same weakness a few lines apart are one defect (see Scan.Findings).
	CWE string
	// Process marks a note about how the change was made (tests, TODOs, dependencies, size,
	// removed API) rather than a defect in what it does. Process notes never decide: they are
	// at most medium, an agent votes at most approve_with_changes on them, and what they
	// propose is a follow-up, never a required change.
	Process bool
}

// IsProcess reports whether the rule is a process note.
func IsProcess(rule string) bool { return Rules[rule].Process }

// Rule IDs.
const (
	RuleSecret           = "hardcoded-secret"
	RuleSQLInjection     = "sql-injection"
	RuleCommandInjection = "command-injection"
	RuleTLSVerifyOff     = "tls-verification-disabled"
	RuleWeakPasswordHash = "weak-password-hash"
	RuleInsecureRandom   = "insecure-random"
	RulePathTraversal    = "path-traversal"
	// RulePromptInjection is text in the change addressed to an AI reviewer. The debate knows
	// the same id as toulmin.RulePromptInjection (it escalates such a change to a human); the
	// two are kept equal by a test in review, which imports both.
	RulePromptInjection  = "prompt-injection"
	RuleCallInLoop       = "io-call-in-loop"
	RuleUnboundedGo      = "unbounded-goroutines"
	RuleDeferInLoop      = "defer-in-loop"
	RuleStringConcatLoop = "string-concat-in-loop"
	RuleNewDependency    = "new-dependency"
	RuleLargeFunction    = "large-function"
	RuleLargeFile        = "large-file"
	RuleExportedRemoved  = "exported-api-removed"
	RuleIgnoredError     = "ignored-error"
	RulePanicInLibrary   = "panic-in-library"
	RuleTodo             = "todo-added"
	RuleUntestedChange   = "untested-change"
	RuleTestDeleted      = "test-deleted"
	RuleMitigation       = "mitigation"
	RuleIndexUnguarded   = "index-unguarded"
	RulePrefixMatch      = "prefix-as-match"
)

// Rule IDs of the comparison of base and head (review/evidence/compare). They are hand-written: linters and
// type-checked analyzers look at one tree, and no maintained analyzer compares what a function
// did in base with what it does in head, which is where a removed or weakened protection shows.
const (
	RuleProtectionRemoved    = "protection-removed"
	RuleCheckRemoved         = "check-removed"
	RuleConditionWeakened    = "condition-weakened"
	RuleReleaseRemoved       = "release-removed"
	RuleContextDropped       = "context-dropped"
	RuleErrorHandlingRemoved = "error-handling-removed"
	RuleOffloadRemoved       = "offload-removed"
	RuleLockRemoved          = "lock-removed"
	RuleWorkIntoLoop         = "work-moved-into-loop"
	RuleRegexBacktracking    = "regex-backtracking"
)

// Rules is the catalog of every rule the analyzers report.
var Rules = map[string]Rule{
	RuleSecret: {ID: RuleSecret, CWE: "CWE-798", Stakeholder: Security, Severity: voting.SeverityCritical, Title: "Hard-coded secret",
		Warrant:   "A credential committed to the repository is readable by everyone with access to it, forever, in its history",
		Reference: "CWE-798: Use of Hard-coded Credentials", Fix: "remove the secret, rotate it, and load it from the environment or a secret store",
		Rebuttal: "unless the value is a revoked or placeholder credential", TradeOff: "one more configuration value to provision per environment"},
	RuleSQLInjection: {ID: RuleSQLInjection, CWE: "CWE-89", Stakeholder: Security, Severity: voting.SeverityHigh, Title: "SQL built from strings",
		Warrant:   "Unvalidated input in SQL query construction enables injection attacks",
		Reference: "OWASP Top 10 - A03:2021 Injection; CWE-89", Fix: "use a parameterised query (placeholders with arguments)",
		Rebuttal: "unless every interpolated value is a constant or already converted to a number", TradeOff: "none at run time; placeholders are as fast and plan-cacheable"},
	RuleCommandInjection: {ID: RuleCommandInjection, CWE: "CWE-78", Stakeholder: Security, Severity: voting.SeverityHigh, Title: "Command run with non-constant input",
		Warrant:   "A command line built from variable input lets that input choose the program or inject shell syntax",
		Reference: "OWASP Top 10 - A03:2021 Injection; CWE-78", Fix: "run a fixed program with arguments as a list, without a shell, and check input against an allowlist",
		Rebuttal: "unless the input is checked against an allowlist first", TradeOff: "an allowlist must be kept up to date"},
	RuleTLSVerifyOff: {ID: RuleTLSVerifyOff, CWE: "CWE-295", Stakeholder: Security, Severity: voting.SeverityHigh, Title: "TLS certificate verification disabled",
		Warrant:   "Without certificate verification any machine on the path can impersonate the server and read or change the traffic",
		Reference: "CWE-295: Improper Certificate Validation", Fix: "keep verification on; trust a private CA through a configured root pool instead",
		Rebuttal: "unless this only ever runs against a local test server", TradeOff: "private CAs must be distributed to clients"},
	RuleWeakPasswordHash: {ID: RuleWeakPasswordHash, CWE: "CWE-916", Stakeholder: Security, Severity: voting.SeverityHigh, Title: "Password hashed with a fast hash",
		Warrant:   "Fast unsalted hashes such as MD5 and SHA-1 let stolen password hashes be cracked at billions of guesses per second",
		Reference: "OWASP Password Storage Cheat Sheet; CWE-916", Fix: "hash passwords with bcrypt, scrypt or argon2id",
		Rebuttal: "unless the digest is not used for passwords", TradeOff: "tens of milliseconds of CPU per login"},
	RuleInsecureRandom: {ID: RuleInsecureRandom, CWE: "CWE-338", Stakeholder: Security, Severity: voting.SeverityMedium, Title: "Predictable random numbers for a secret value",
		Warrant:   "A non-cryptographic generator is predictable, so tokens drawn from it can be guessed",
		Reference: "CWE-338: Use of Cryptographically Weak PRNG", Fix: "draw tokens from crypto/rand (secrets in Python, crypto.randomBytes in Node, SecureRandom in Java)",
		Rebuttal: "unless the value guards nothing", TradeOff: "negligible"},
	RulePathTraversal: {ID: RulePathTraversal, CWE: "CWE-22", Stakeholder: Security, Severity: voting.SeverityHigh, Title: "File path taken from request input",
		Warrant:   "A path from the request can contain ../ and reach files outside the intended directory",
		Reference: "OWASP Path Traversal; CWE-22", Fix: "resolve the path inside a fixed root (os.Root, filepath.IsLocal or a prefix check after filepath.Clean)",
		Rebuttal: "unless the path is checked to stay inside the root", TradeOff: "none"},
	RulePromptInjection: {ID: RulePromptInjection, Stakeholder: Security, Severity: voting.SeverityHigh, Title: "Text that tries to instruct an AI reviewer",
		Warrant:   "Text in a change that addresses AI reviewers is an attempt to steer automated review; it must be treated as data and looked at by a human",
		Reference: "OWASP Top 10 for LLM Applications - LLM01 Prompt Injection", Fix: "remove the instruction-like text, or explain why it belongs in the change",
		Rebuttal: "unless the text is test data for a prompt-injection filter", TradeOff: "none"},
	RuleCallInLoop: {ID: RuleCallInLoop, CWE: "CWE-1050", Stakeholder: Performance, Severity: voting.SeverityMedium, Title: "Database or HTTP call inside a loop",
		Warrant:   "One round trip per iteration makes latency grow with the data (the N+1 query pattern)",
		Reference: "N+1 query problem", Fix: "fetch in one batched query or request outside the loop",
		Rebuttal: "unless the loop is bounded by a small constant", TradeOff: "batched code is a little more complex"},
	RuleUnboundedGo: {ID: RuleUnboundedGo, Stakeholder: Performance, Severity: voting.SeverityMedium, Title: "Unbounded goroutines started in a loop",
		Warrant:   "One goroutine per item with no bound lets a large input exhaust memory, file descriptors or the downstream service",
		Reference: "golang.org/x/sync/errgroup SetLimit", Fix: "bound concurrency with errgroup.SetLimit or a worker pool",
		Rebuttal: "unless the number of items is small and bounded", TradeOff: "a bound may lengthen wall time"},
	RuleDeferInLoop: {ID: RuleDeferInLoop, Stakeholder: Performance, Severity: voting.SeverityMedium, Title: "defer inside a loop",
		Warrant:   "Deferred calls run when the function returns, not per iteration, so resources pile up until then",
		Reference: "Effective Go: Defer", Fix: "move the loop body into a function, or close the resource explicitly each iteration",
		Rebuttal: "unless the loop runs a handful of times", TradeOff: "none"},
	RuleStringConcatLoop: {ID: RuleStringConcatLoop, Stakeholder: Performance, Severity: voting.SeverityLow, Title: "String built by += in a loop",
		Warrant:   "Each += copies the whole string, which is quadratic in the output size",
		Reference: "strings.Builder / str.join", Fix: "use strings.Builder (join a list in Python and JavaScript, StringBuilder in Java)",
		Rebuttal: "unless the loop is short", TradeOff: "none"},
	RuleNewDependency: {ID: RuleNewDependency, Process: true, Stakeholder: Architecture, Severity: voting.SeverityLow, Title: "New dependency",
		Warrant:   "Every dependency adds supply-chain risk, licence terms and upgrade work that the project carries from now on",
		Reference: "OpenSSF Concise Guide for Evaluating Open Source Software", Fix: "say why the dependency is needed and that its maintenance and licence were checked",
		Rebuttal: "unless it replaces hand-written code for a solved problem", TradeOff: "less code to own in exchange for an upstream to follow"},
	RuleLargeFunction: {ID: RuleLargeFunction, Process: true, Stakeholder: Maintainability, Severity: voting.SeverityMedium, Title: "Very large function added",
		Warrant:   "Long functions mix responsibilities and are hard to review, test and change safely",
		Reference: "Clean Code: functions should do one thing", Fix: "split the function into named steps",
		Rebuttal: "unless it is a flat table or generated", TradeOff: "more, smaller functions to navigate"},
	RuleLargeFile: {ID: RuleLargeFile, Process: true, Stakeholder: Architecture, Severity: voting.SeverityLow, Title: "Very large file added",
		Warrant:   "A very large file usually holds more than one responsibility and is hard to review in one change",
		Reference: "Single Responsibility Principle", Fix: "split the file by responsibility, or land it in smaller changes",
		Rebuttal: "unless it is data or generated", TradeOff: "more files"},
	RuleExportedRemoved: {ID: RuleExportedRemoved, Process: true, Stakeholder: Architecture, Severity: voting.SeverityMedium, Title: "Exported API removed",
		Warrant:   "Removing an exported name breaks every caller outside the change without warning",
		Reference: "Semantic Versioning 2.0.0; Go module compatibility", Fix: "deprecate the name first and keep it working, or release the break as a new major version",
		Rebuttal: "unless nothing outside the repository uses it", TradeOff: "a deprecated name to keep for a while"},
	RuleIgnoredError: {ID: RuleIgnoredError, Stakeholder: Maintainability, Severity: voting.SeverityMedium, Title: "Error ignored",
		Warrant:   "An ignored error turns a failure into silent wrong behaviour that is hard to debug",
		Reference: "Effective Go: Errors", Fix: "handle the error or return it with context",
		Rebuttal: "unless the call cannot fail in practice", TradeOff: "a few lines of error handling"},
	RulePanicInLibrary: {ID: RulePanicInLibrary, Stakeholder: Maintainability, Severity: voting.SeverityMedium, Title: "panic in library code",
		Warrant:   "A panic in a library takes down the caller's whole process instead of letting it decide",
		Reference: "Go Code Review Comments: Don't Panic", Fix: "return an error instead",
		Rebuttal: "unless the condition is a programming error that can never happen at run time", TradeOff: "callers handle one more error"},
	RuleTodo: {ID: RuleTodo, Process: true, Stakeholder: Maintainability, Severity: voting.SeverityLow, Title: "TODO/FIXME/HACK added",
		Warrant:   "Markers of unfinished work get forgotten unless tracked",
		Reference: "Technical debt tracking", Fix: "finish the work or link the marker to an issue",
		Rebuttal: "unless an issue tracks it", TradeOff: "none"},
	RuleUntestedChange: {ID: RuleUntestedChange, Process: true, Stakeholder: Maintainability, Severity: voting.SeverityMedium, Title: "Code changed with no test change",
		Warrant:   "Changed behaviour without a test is unverified and can regress unnoticed",
		Reference: "Testing pyramid", Fix: "add or update tests that cover the changed code",
		Rebuttal: "unless existing tests already cover the change", TradeOff: "time to write the tests"},
	RuleTestDeleted: {ID: RuleTestDeleted, Process: true, Stakeholder: Maintainability, Severity: voting.SeverityMedium, Title: "Tests deleted",
		Warrant:   "Deleting tests removes the proof that behaviour still works",
		Reference: "Testing pyramid", Fix: "keep the tests, or say what covers that behaviour now",
		Rebuttal: "unless the code they tested was removed too", TradeOff: "none"},
	RuleProtectionRemoved: {ID: RuleProtectionRemoved, CWE: "CWE-693", Stakeholder: Security, Severity: voting.SeverityHigh, Title: "Protection removed on the way to a sensitive call",
		Warrant:   "The change removed a check, sanitiser or restricting setting that base applied before a file, command, SQL, redirect or network call that head still makes, and head applies nothing equivalent: input base refused now reaches the call",
		Reference: "CWE-693: Protection Mechanism Failure; OWASP Top 10 - A01:2021 Broken Access Control", Fix: "restore the check (or call the function that performs it) on the path to the call",
		Rebuttal: "unless the protection now happens elsewhere on every path to the call", TradeOff: "none: base had it"},
	RuleCheckRemoved: {ID: RuleCheckRemoved, Stakeholder: Maintainability, Severity: voting.SeverityMedium, Title: "Check removed",
		Warrant:   "The change removed a guard (an early exit, a nil check, an assertion, a bound) that base applied, and head tests nothing equivalent: the cases it refused now reach the code after it",
		Reference: "Defensive programming; CWE-754: Improper Check for Unusual or Exceptional Conditions", Fix: "restore the check, or say why the case can no longer happen",
		Rebuttal: "unless the case it handled can no longer occur", TradeOff: "none: base had it"},
	RuleConditionWeakened: {ID: RuleConditionWeakened, CWE: "CWE-697", Stakeholder: Security, Severity: voting.SeverityHigh, Title: "Condition weakened",
		Warrant:   "The change dropped a term from a condition (a refusal's disjunct, an action's conjunct) or the separator from a prefix check, so the check accepts cases base refused",
		Reference: "CWE-697: Incorrect Comparison; CWE-22 for prefix checks without a separator", Fix: "restore the dropped term or separator",
		Rebuttal: "unless the dropped case is handled elsewhere on the path", TradeOff: "none: base had it"},
	RuleReleaseRemoved: {ID: RuleReleaseRemoved, CWE: "CWE-772", Stakeholder: Performance, Severity: voting.SeverityMedium, Title: "Release removed while the resource is still acquired",
		Warrant:   "The change removed the Close, cancel, unlock or with block that released a resource head still acquires: each call leaks a file descriptor, connection or lock until the process runs out",
		Reference: "CWE-772: Missing Release of Resource after Effective Lifetime", Fix: "restore the release (defer x.Close() right after the acquisition, a with block, a finally)",
		Rebuttal: "unless ownership passed to code that releases it", TradeOff: "none"},
	RuleContextDropped: {ID: RuleContextDropped, CWE: "CWE-400", Stakeholder: Performance, Severity: voting.SeverityMedium, Title: "Context or deadline dropped",
		Warrant:   "The change stopped passing a context, timeout or deadline to a call that blocks on a peer: cancelling the caller no longer stops it, and a hung peer holds its goroutine and connection for ever",
		Reference: "Go: context package, http.NewRequestWithContext; CWE-400: Uncontrolled Resource Consumption", Fix: "pass the context (or the timeout) again",
		Rebuttal: "unless the call is bounded another way", TradeOff: "none"},
	RuleErrorHandlingRemoved: {ID: RuleErrorHandlingRemoved, CWE: "CWE-248", Stakeholder: Maintainability, Severity: voting.SeverityMedium, Title: "Error handling removed in a callback",
		Warrant:   "The change removed the try/catch around a call that can throw inside a callback, where nothing up the stack catches it: a failure there ends the process instead of reaching the caller",
		Reference: "CWE-248: Uncaught Exception", Fix: "catch the error in the callback and pass it to the caller's callback or promise",
		Rebuttal: "unless the call cannot throw", TradeOff: "none"},
	RuleOffloadRemoved: {ID: RuleOffloadRemoved, Stakeholder: Performance, Severity: voting.SeverityMedium, Title: "Blocking call moved onto the event loop",
		Warrant:   "The change calls directly, in an async function, what base ran in a worker thread: while it blocks on the file system or the network, the event loop serves nothing else",
		Reference: "Python asyncio: asyncio.to_thread, loop.run_in_executor", Fix: "run the call in a thread again (await asyncio.to_thread(f, ...))",
		Rebuttal: "unless the call never blocks", TradeOff: "a thread hop per call"},
	RuleLockRemoved: {ID: RuleLockRemoved, CWE: "CWE-362", Stakeholder: Maintainability, Severity: voting.SeverityMedium, Title: "Read taken out of its lock",
		Warrant:   "Base read the field while holding the lock that its writers take; head reads it without (before the Lock, or directly instead of through the accessor that locks): a concurrent write races with the read",
		Reference: "CWE-362: Concurrent Execution using Shared Resource with Improper Synchronization; the Go memory model", Fix: "read the field under the lock again (or through the accessor that takes it)",
		Rebuttal: "unless no goroutine writes the field while this runs", TradeOff: "the read waits for the lock"},
	RuleWorkIntoLoop: {ID: RuleWorkIntoLoop, Stakeholder: Performance, Severity: voting.SeverityMedium, Title: "Loop-invariant work moved into a loop",
		Warrant:   "Base made the call once, outside the loop; head makes it on every iteration with the same inputs: the work grows with the number of items for nothing",
		Reference: "Loop-invariant code motion", Fix: "compute it once before the loop, as base did, and reuse the result",
		Rebuttal: "unless the loop runs a handful of times", TradeOff: "a variable that holds the result"},
	RuleRegexBacktracking: {ID: RuleRegexBacktracking, CWE: "CWE-1333", Stakeholder: Security, Severity: voting.SeverityMedium, Title: "Regular expression made super-linear",
		Warrant:   "The change gave a regular expression a repetition that can split its input in exponentially many ways ((.|\\s)*, (\\w+\\s?)*); JavaScript's and Python's backtracking engines try them all on an input that almost matches, and one request can hold the process (ReDoS)",
		Reference: "CWE-1333: Inefficient Regular Expression Complexity; OWASP ReDoS", Fix: "make the repetition unambiguous ([^']*, [\\s\\S]*) or bound the input's length",
		Rebuttal: "unless the input is short and trusted", TradeOff: "none: the unambiguous pattern matches the same strings"},
	RuleIndexUnguarded: {ID: RuleIndexUnguarded, CWE: "CWE-129", Stakeholder: Maintainability, Severity: voting.SeverityHigh, Title: "Index not covered by its length check",
		Warrant:   "The index runs on a path where no length check covers it (the right side of || when the length test is under && on the left; a loop bounded by one sequence indexing another); a short input makes it read past the end, which panics in Go and crashes the request or the process",
		Reference: "CWE-129: Improper Validation of Array Index; CWE-783: Operator Precedence Logic Error", Fix: "check the length of the sequence that is indexed, on the same path: parenthesise (len(s) >= n && (a || b)), or bound the loop by both lengths",
		Rebuttal: "unless every caller guarantees the length", TradeOff: "none: one more comparison"},
	RulePrefixMatch: {ID: RulePrefixMatch, CWE: "CWE-187", Stakeholder: Maintainability, Severity: voting.SeverityMedium, Title: "Prefix accepted as a full match",
		Warrant:   "The element-by-element comparison stops at the end of the shorter sequence and the function then reports a match, so a value that only starts like the other matches too (foo matches foo.bar)",
		Reference: "CWE-187: Partial String Comparison", Fix: "return true after the loop only when both lengths are equal (or when a wildcard consumed the rest)",
		Rebuttal: "unless prefix matching is what the function means", TradeOff: "none"},
	RuleMitigation: {ID: RuleMitigation, Stakeholder: Architecture, Severity: voting.SeverityInfo, Title: "Mitigation in the same change",
		Warrant: "A check added in the same change can neutralise a finding", Reference: "Defence in depth"},
}

// Topics say what kind of defect a check finds; the caller maps them to a stakeholder.
const (
	TopicCorrectness = "correctness"
	TopicConcurrency = "concurrency"
	TopicResource    = "resource"
	TopicPerformance = "performance"
)

// Check describes one analyzer the runner runs: its rule id (the analyzer's name, e.g. "nilness"
// or "SA5011"), where it comes from, what it finds and how serious its findings are.
type Check struct {
	Rule     string
	Source   string // "go vet" (golang.org/x/tools passes), "staticcheck", "go linter" (maintained.go), "gosec" or "debatebot"
	Title    string
	URL      string
	Severity voting.Severity
	Topic    string
	// CWE is the weakness a gosec or debatebot rule finds ("CWE-89"); Fix says in a line what to
	// do about its finding. Both are empty for the vet and staticcheck checks.
	CWE, Fix string
	// Warrant says why a finding of the check matters, Rebuttal when it would not, TradeOff what
	// the fix costs; set for the project's own checks (SourceDebatebot), whose reasons are their
	// own rather than their topic's.
	Warrant, Rebuttal, TradeOff string
	// Analyzer is nil for gosec's rules, which run together through gosec's own analyzer.
	Analyzer *analysis.Analyzer
}

// TopicSecurity is the topic of gosec's findings: the security stakeholder argues them.
const TopicSecurity = "security"

// RuleAnalysisBlinded is a change that takes a package out of the type-checked analysis: the
// base's was analysed, the head's is not, though its Go files are still there (a build
// constraint added, a go.mod broken, the files excluded some other way).
const RuleAnalysisBlinded = "analysis-blinded"

// Analyzer names of the type-checked Go checks (review/evidence): the x/tools passes run as go
// vet runs them, staticcheck's SA checks, gosec's AST and SSA taint rules, and the project's own
// analyzers with the comparison of protections in base and head.
const (
	AnalyzerGoVet       = "go vet"
	AnalyzerStaticcheck = "staticcheck"
	AnalyzerGosec       = SourceGosec
	AnalyzerDebatebot   = SourceDebatebot
)

func IsTypedGo(analyzer string) bool {
	return analyzer == AnalyzerGoVet || analyzer == AnalyzerStaticcheck || analyzer == AnalyzerGoLinter || analyzer == AnalyzerGosec || analyzer == AnalyzerDebatebot
}

// SourceDebatebot names the project's own analyses as the source of a check: the go/analysis
// analyzers of this package (lock order, queries per loop iteration) and the
// comparison of base and head that finds protections the change removed or weakened.
const SourceDebatebot = "debatebot"

// SourceGosec names gosec (github.com/securego/gosec/v2) as the source of a check.
const SourceGosec = "gosec"

// AnalyzerGoLinter names the maintained go/analysis linters beyond vet and staticcheck that the
// runner runs as they are (bodyclose, sqlclosecheck, rowserrcheck, noctx, errcheck, nilaway).
const AnalyzerGoLinter = "go linter"
