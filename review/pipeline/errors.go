package pipeline

// UsageError is bad input from the user: the flags, the workflow's environment or event, a
// protocol the configuration does not know; printed on one line, exit 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }
