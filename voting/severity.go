package voting

// Severity ranks a finding or an argument's concern. It lives here, at the bottom of the
// imports, so that evidence gathering, the debate and the decision record share one scale.
type Severity string

// Severities from the least to the most serious.
const (
	SeverityInfo     Severity = "info"
	SeverityLow      Severity = "low"
	SeverityMedium   Severity = "medium"
	SeverityHigh     Severity = "high"
	SeverityCritical Severity = "critical"
)

var severityRank = map[Severity]int{SeverityInfo: 0, SeverityLow: 1, SeverityMedium: 2, SeverityHigh: 3, SeverityCritical: 4}

// Rank orders severities; an unknown severity ranks as info.
func (s Severity) Rank() int { return severityRank[s] }

// Valid reports whether s is a known severity.
func (s Severity) Valid() bool {
	_, ok := severityRank[s]
	return ok
}
