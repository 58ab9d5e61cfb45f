package evidence

import (
	"fmt"
	"go/ast"
	"go/token"
	"io"
	"log"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
	"github.com/securego/gosec/v2"
	"github.com/securego/gosec/v2/analyzers"
	"github.com/securego/gosec/v2/issue"
	gosecrules "github.com/securego/gosec/v2/rules"
	"golang.org/x/tools/go/analysis/passes/buildssa"
)

// gosecLeftOut are gosec rules the runner does not run: audits that flag every use rather than
// a defect (G103 every unsafe block, G104 every unchecked error, which staticcheck and the vet
// passes judge with more precision), and G601, which Go 1.22's per-iteration loop variables made
// moot.
var gosecLeftOut = map[string]bool{"G103": true, "G104": true, "G601": true}

// gosecFixes say in a line what to do about each gosec rule's finding.
var gosecFixes = map[string]string{
	"G101": "load the credential from the environment or a secret store instead of the source",
	"G102": "listen on a specific interface (e.g. 127.0.0.1) unless every interface is meant",
	"G106": "verify the host key (ssh.FixedHostKey or a known_hosts callback)",
	"G107": "build the URL from a fixed base and validate the request-derived part against an allowlist",
	"G108": "serve net/http/pprof on a separate, non-public listener",
	"G109": "parse with strconv.ParseInt and the target bit size instead of converting Atoi's int",
	"G110": "copy a bounded amount (io.CopyN or an io.LimitReader) when decompressing",
	"G111": "serve a dedicated directory, not the file system root",
	"G112": "set ReadHeaderTimeout on the http.Server",
	"G113": "reject requests with conflicting Content-Length and Transfer-Encoding headers",
	"G114": "use an http.Server with read, write and idle timeouts instead of http.ListenAndServe",
	"G115": "check the value's range before the integer conversion",
	"G116": "remove the bidirectional Unicode control characters",
	"G117": "keep secrets out of marshalled structures (json:\"-\" or a redacting type)",
	"G118": "pass the caller's context on instead of a new background context",
	"G119": "strip credentials and cookies in the redirect policy when the host changes",
	"G120": "bound the form's size (http.MaxBytesReader, a ParseMultipartForm limit)",
	"G121": "do not exempt requests from CrossOriginProtection by a pattern the client controls",
	"G122": "open files relative to an os.Root instead of re-resolving walked paths",
	"G123": "set VerifyConnection too, so that resumed TLS sessions are verified",
	"G124": "set Secure, HttpOnly and SameSite on the cookie",
	"G125": "escape path elements before url.JoinPath",
	"G201": "use a parameterised query: placeholders in the SQL, values as arguments",
	"G202": "use a parameterised query: placeholders in the SQL, values as arguments",
	"G203": "let html/template escape the value instead of converting it to template.HTML/JS/URL",
	"G204": "run a fixed program with arguments as a list, and check input against an allowlist",
	"G301": "create directories with mode 0750 or stricter",
	"G302": "create or chmod files with mode 0600 or stricter",
	"G303": "create temporary files with os.CreateTemp",
	"G304": "resolve the path inside a fixed root (os.Root, filepath.IsLocal after filepath.Clean)",
	"G305": "check that each archive entry's name stays inside the destination (filepath.IsLocal)",
	"G306": "write files with mode 0600 or stricter",
	"G307": "create files with os.OpenFile and mode 0600 or stricter",
	"G401": "use SHA-256 or stronger (bcrypt/argon2id for passwords)",
	"G402": "keep TLS verification on and MinVersion at TLS 1.2 or later",
	"G403": "use RSA keys of 2048 bits or more",
	"G404": "draw security-relevant random values from crypto/rand",
	"G405": "use AES-GCM or ChaCha20-Poly1305 instead of DES or RC4",
	"G406": "use SHA-256 or stronger instead of MD4 or RIPEMD-160",
	"G407": "draw a fresh random nonce/IV for each encryption",
	"G408": "decide authentication in the callback's own return value, not in state it sets",
	"G501": "use crypto/sha256 or stronger instead of crypto/md5",
	"G502": "use crypto/aes instead of crypto/des",
	"G503": "use an AEAD cipher instead of crypto/rc4",
	"G504": "do not use net/http/cgi (CVE-2016-5386); serve over net/http",
	"G505": "use crypto/sha256 or stronger instead of crypto/sha1",
	"G506": "use crypto/sha256 or stronger instead of MD4",
	"G507": "use crypto/sha256 or stronger instead of RIPEMD-160",
	"G602": "check the index against the slice's length before slicing",
	"G701": "use a parameterised query: placeholders in the SQL, request values as arguments",
	"G702": "run a fixed program with request values as checked arguments, never as the command or through a shell",
	"G703": "resolve the request's path inside a fixed root (os.Root, filepath.IsLocal after filepath.Clean)",
	"G704": "fetch only URLs whose host is on an allowlist; do not let the request choose the host",
	"G705": "write request values through html/template (or html.EscapeString), not raw to the response",
	"G706": "quote or strip newlines from request values before logging them (or log them as structured fields)",
	"G707": "reject CR and LF in request values used in SMTP commands or headers",
	"G708": "parse templates from fixed text; pass request values as data, never as the template",
	"G709": "decode untrusted data into fixed types with a safe decoder (no gob/yaml into interfaces)",
	"G710": "redirect only to relative paths or hosts on an allowlist",
}

// taintSeverity is the severity gosec gives its SSA taint rules (CRITICAL for command injection
// and template injection, which gosec's issues flatten to High).
var taintSeverity = taintSeverities()

func taintSeverities() map[string]voting.Severity {
	out := map[string]voting.Severity{}
	for _, r := range []struct{ ID, Severity string }{
		{analyzers.SQLInjectionRule.ID, analyzers.SQLInjectionRule.Severity},
		{analyzers.CommandInjectionRule.ID, analyzers.CommandInjectionRule.Severity},
		{analyzers.PathTraversalRule.ID, analyzers.PathTraversalRule.Severity},
		{analyzers.SSRFRule.ID, analyzers.SSRFRule.Severity},
		{analyzers.XSSRule.ID, analyzers.XSSRule.Severity},
		{analyzers.LogInjectionRule.ID, analyzers.LogInjectionRule.Severity},
		{analyzers.SMTPInjectionRule.ID, analyzers.SMTPInjectionRule.Severity},
		{analyzers.SSTIRule.ID, analyzers.SSTIRule.Severity},
		{analyzers.UnsafeDeserializationRule.ID, analyzers.UnsafeDeserializationRule.Severity},
		{analyzers.OpenRedirectRule.ID, analyzers.OpenRedirectRule.Severity},
		{analyzers.FormParsingLimitRule.ID, analyzers.FormParsingLimitRule.Severity},
	} {
		out[r.ID] = voting.Severity(strings.ToLower(r.Severity))
	}
	return out
}

// gosecRuleID is the project's rule id of a gosec rule ("gosec:G201").
func gosecRuleID(id string) string { return "gosec:" + id }

// gosecChecks lists gosec's AST rules (gosecrules.Generate) and SSA analyzers (analyzers.Generate),
// taint rules included, as checks of the security topic; their default severity is the one a
// finding of high confidence gets (see gosecSeverity).
func gosecChecks() []rules.Check {
	var out []rules.Check
	add := func(id, desc string) {
		if gosecLeftOut[id] {
			return
		}
		sev := voting.SeverityMedium
		if s, ok := taintSeverity[id]; ok {
			sev = s
		} else if strings.HasPrefix(id, "G2") || strings.HasPrefix(id, "G3") || id == "G101" || id == "G107" || id == "G402" {
			sev = voting.SeverityHigh
		}
		c := rules.Check{Rule: gosecRuleID(id), Source: rules.SourceGosec, Title: desc, Severity: sev, Topic: rules.TopicSecurity,
			URL: "https://github.com/securego/gosec#available-rules", Fix: gosecFixes[id]}
		if w := issue.GetCweByRule(id); w != nil {
			c.CWE, c.URL = w.SprintID(), w.SprintURL()
		}
		out = append(out, c)
	}
	for id, def := range gosecrules.Generate(false).Rules {
		add(id, def.Description)
	}
	for id, def := range analyzers.Generate(false).Analyzers {
		add(id, def.Description)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rule < out[j].Rule })
	return out
}

// gosecSeverity turns a gosec issue's severity and confidence into the debate's severity: the
// taint rules keep the severity gosec declares for them (critical for command and template
// injection); other rules take gosec's severity, one step lower when gosec's confidence is low.
func gosecSeverity(iss *issue.Issue) voting.Severity {
	if s, ok := taintSeverity[iss.RuleID]; ok {
		return s
	}
	rank := int(iss.Severity)
	if iss.Confidence == issue.Low && rank > int(issue.Low) {
		rank--
	}
	switch issue.Score(rank) {
	case issue.High:
		return voting.SeverityHigh
	case issue.Medium:
		return voting.SeverityMedium
	}
	return voting.SeverityLow
}

// runGosec runs gosec's AST rules and SSA analyzers (its taint rules among them) over the
// driver's already type-checked package, reusing the SSA the driver built for the other
// analyzers. gosec's SSA analyzers are left out for a package that does not type-check, as gosec
// itself does (its buildSSA refuses ill-typed packages); its AST rules run on what type-checks.
// #nosec comments are honoured as gosec honours them. Findings in test files are dropped, as
// gosec drops them by default.
func (d *driver) runGosec(treeRoot string) (found []scan.Finding, err error) {
	defer func() {
		if r := recover(); r != nil {
			found, err = nil, fmt.Errorf("gosec panic: %v (%s)", r, firstFrame(debug.Stack()))
		}
	}()
	start := time.Now()
	defer func() { d.times.Since("gosec (without SSA)", start) }()
	g := gosec.NewAnalyzer(gosec.NewConfig(), false, true, false, 1, log.New(io.Discard, "", 0))
	ruleDefs, ruleOff := gosecrules.Generate(false, gosecrules.NewRuleFilter(true, leftOutIDs()...)).RulesInfo()
	g.LoadRules(ruleDefs, ruleOff)
	g.CheckRules(d.pkg)
	if !d.pkg.IllTyped {
		anDefs, anOff := analyzers.Generate(false, analyzers.NewAnalyzerFilter(true, leftOutIDs()...)).AnalyzersInfo()
		g.LoadAnalyzers(anDefs, anOff)
		ssaStart := time.Now()
		ssaOut := d.run(buildssa.Analyzer)
		start = start.Add(time.Since(ssaStart)) // an SSA built here counts as buildssa's
		if ssaOut.err != nil {
			return nil, fmt.Errorf("gosec needs SSA: %w", ssaOut.err)
		}
		if ssa, ok := ssaOut.result.(*buildssa.SSA); ok && ssa != nil {
			g.CheckAnalyzersWithSSA(d.pkg, ssa)
		}
	}
	issues, _, _ := g.Report()
	for _, iss := range issues {
		if iss == nil || iss.File == "" || strings.HasSuffix(iss.File, "_test.go") {
			continue
		}
		if sqlTextRules[iss.RuleID] && d.placeholdersOnly(iss) {
			continue // IN (?,?,?) generated from constants, the values bound: see generatedPlaceholders
		}
		f, ok := gosecFinding(treeRoot, d, iss)
		if ok {
			found = append(found, f)
		}
	}
	return found, nil
}

// sqlTextRules are gosec's rules about SQL text built from strings: formatting (G201),
// concatenation (G202) and request data reaching the query (G701).
var sqlTextRules = map[string]bool{"G201": true, "G202": true, "G701": true}

// placeholdersOnly reports whether the SQL text on the issue's line is built from constants only
// (placeholders generated per value, the values passed as arguments), which gosec cannot tell
// from SQL built from input.
func (d *driver) placeholdersOnly(iss *issue.Issue) bool {
	lineText, _, _ := strings.Cut(iss.Line, "-")
	line, err := strconv.Atoi(lineText)
	if err != nil {
		return false
	}
	for _, f := range d.pkg.Syntax {
		if d.pkg.Fset.File(f.Pos()).Name() != iss.File {
			continue
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if d.pkg.Fset.Position(fd.Body.Pos()).Line <= line && line <= d.pkg.Fset.Position(fd.Body.End()).Line {
				return generatedPlaceholders(d.pkg.Fset, d.pkg.TypesInfo, fd.Body, line)
			}
		}
	}
	return false
}

func leftOutIDs() []string {
	ids := make([]string, 0, len(gosecLeftOut))
	for id := range gosecLeftOut {
		ids = append(ids, id)
	}
	return ids
}

func gosecFinding(treeRoot string, d *driver, iss *issue.Issue) (scan.Finding, bool) {
	rel, err := filepath.Rel(treeRoot, iss.File)
	if err != nil || !filepath.IsLocal(rel) {
		return scan.Finding{}, false
	}
	lineText, _, _ := strings.Cut(iss.Line, "-") // a range "28-34" starts at its first line
	line, err := strconv.Atoi(lineText)
	if err != nil || line < 1 {
		return scan.Finding{}, false
	}
	col, _ := strconv.Atoi(iss.Col)
	f := scan.Finding{
		Rule: gosecRuleID(iss.RuleID), Source: rules.SourceGosec, Severity: gosecSeverity(iss), Topic: rules.TopicSecurity,
		Path: filepath.ToSlash(rel), Line: line, Column: col, Message: iss.What,
	}
	var tf *token.File
	d.pkg.Fset.Iterate(func(x *token.File) bool {
		if x.Name() == iss.File {
			tf = x
			return false
		}
		return true
	})
	if tf != nil && line <= tf.LineCount() {
		pos := tf.LineStart(line)
		if col > 1 && int(pos)+col-1 <= tf.Base()+tf.Size() {
			pos += token.Pos(col - 1)
		}
		f.Func = enclosingFunc(d.pkg, pos)
		f.Conds = pathConds(d.pkg.Syntax, pos)
	}
	return f, true
}
