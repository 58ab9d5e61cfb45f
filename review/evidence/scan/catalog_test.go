package scan_test

// The processors read the rule catalog, which the analyzers of review/evidence complete when
// they are linked in (the type-checked checks, the maintained linters, the external tools'
// rules): their tests see the whole catalog, as every gathering does.
import _ "github.com/debatebot/debatebot/review/evidence"
