// Package dialectic is seed 000's dialectic layer, independent of GitHub and of models: an
// advocate and a critic argue in turn (the critic sees the advocate's answer), and the
// orchestrator's synthesis resolves the debate by fixed rules. A failure debate, held after two
// consecutive failures of one task with the same error fingerprint, resolves to RETRY, PIVOT or
// ESCALATE; a planning debate, held before a high-stakes action, to PROCEED, MODIFY or ESCALATE.
//
// The package also names the inputs seed 000 specifies exactly: the task id (TaskID, a hash of
// the canonical task description) and the error fingerprint (Fingerprint). Agents are one
// interface with a rule-based implementation (Rules) that needs no model and a model-backed one
// outside this package.
package dialectic
