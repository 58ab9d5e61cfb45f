package external

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// SourceBandit names bandit (PyCQA's security linter for Python) as the source of findings.
const SourceBandit = "bandit"

// Bandit runs bandit (Debian's package: bandit 1.6.2 on bookworm, which prints JSON but no SARIF)
// over Python files. It parses the files with Python's ast module and never imports them.
type Bandit struct{}

// Name implements Tool.
func (Bandit) Name() string { return SourceBandit }

// Language implements Tool.
func (Bandit) Language() string { return "Python" }

// Handles implements Tool.
func (Bandit) Handles(p string) bool { return strings.EqualFold(path.Ext(p), ".py") }

// banditLeftOut are bandit's audits that flag every use rather than a defect, as gosec's G103
// and G104 are left out of the Go analysis: assert (every pytest test), the import of a module
// whose dangerous calls are checked by their own tests (B4xx), and subprocess calls without a
// shell or by a program's bare name (B603, B606, B607: every call).
var banditLeftOut = []string{"B101", "B401", "B402", "B403", "B404", "B405", "B406", "B407", "B408", "B409", "B410", "B411", "B412", "B413", "B603", "B606", "B607"}

// Command implements Tool. The files are given one by one, not a directory: bandit looks
// for a .bandit configuration in the directories it is given, which a change could add to switch
// tests off. --ignore-nosec makes "# nosec" comments count for nothing, for the same reason.
func (Bandit) Command(files []string) (string, []string, error) {
	p, err := lookPath("bandit")
	if err != nil {
		return "", nil, err
	}
	args := []string{"--format", "json", "--quiet", "--ignore-nosec", "--skip", strings.Join(banditLeftOut, ","), "--"}
	return p, append(args, files...), nil
}

type banditReport struct {
	Errors []struct {
		Filename string `json:"filename"`
		Reason   string `json:"reason"`
	} `json:"errors"`
	Results *[]struct {
		Filename   string `json:"filename"`
		Confidence string `json:"issue_confidence"`
		Severity   string `json:"issue_severity"`
		Text       string `json:"issue_text"`
		Line       int    `json:"line_number"`
		TestID     string `json:"test_id"`
		TestName   string `json:"test_name"`
	} `json:"results"`
}

// Parse implements Tool: bandit exits 0 when it found nothing and 1 when it found
// something, with its JSON report on standard output either way.
func (Bandit) Parse(out *ToolOutput) ([]scan.Finding, []Problem, error) {
	var rep banditReport
	if err := json.Unmarshal(out.Stdout, &rep); err != nil || rep.Results == nil || out.ExitCode > 1 {
		if err == nil && rep.Results == nil {
			err = fmt.Errorf("no results")
		}
		if err == nil {
			err = fmt.Errorf("exit status %d", out.ExitCode)
		}
		return nil, nil, reportError(SourceBandit, out, err)
	}
	var found []scan.Finding
	for _, r := range *rep.Results {
		if r.Filename == "" || r.Line < 1 || r.TestID == "" {
			continue
		}
		found = append(found, externalFinding(SourceBandit, r.TestID, banditSeverity(r.Severity, r.Confidence), r.Filename, r.Line, 0, strings.TrimSpace(r.Text)))
	}
	var problems []Problem
	for _, e := range rep.Errors {
		problems = append(problems, Problem{Path: e.Filename, Reason: e.Reason})
	}
	return found, problems, nil
}

// banditSeverity turns bandit's severity and confidence into the debate's: an issue bandit is
// confident of and rates medium or high is high (it can decide), a high-severity issue of medium
// confidence is medium, a medium one of medium confidence too; everything else (low severity, low
// confidence) is low. The catalog then caps rules that are noisy whatever bandit says.
func banditSeverity(sev, conf string) voting.Severity {
	sev, conf = strings.ToUpper(sev), strings.ToUpper(conf)
	switch {
	case conf == "HIGH" && (sev == "HIGH" || sev == "MEDIUM"):
		return voting.SeverityHigh
	case conf == "MEDIUM" && (sev == "HIGH" || sev == "MEDIUM"):
		return voting.SeverityMedium
	}
	return voting.SeverityLow
}

// banditRules is the catalog of bandit 1.6.2's tests that run (all but banditLeftOut), with the
// most serious severity each may have. Calls that are only sometimes dangerous (md5 for a cache
// key, urlopen, random for a jitter) are low: they point at a place to look, not a defect.
var banditRules = map[string]externalRule{
	"B102": {title: "exec used", severity: voting.SeverityHigh, fix: "do not exec code built at run time; call the functions directly"},
	"B103": {title: "permissive file permissions set", severity: voting.SeverityMedium, fix: "set file modes to 0o600 (0o700 for directories) or stricter"},
	"B104": {title: "binding to all interfaces", severity: voting.SeverityLow, fix: "bind to a specific interface unless every interface is meant"},
	"B105": {title: "hard-coded password string", severity: voting.SeverityMedium, fix: "load the password from the environment or a secret store"},
	"B106": {title: "hard-coded password argument", severity: voting.SeverityMedium, fix: "load the password from the environment or a secret store"},
	"B107": {title: "hard-coded password default", severity: voting.SeverityMedium, fix: "load the password from the environment or a secret store"},
	"B108": {title: "hard-coded temporary directory", severity: voting.SeverityLow, fix: "create temporary files with the tempfile module"},
	"B110": {title: "try/except/pass", severity: voting.SeverityLow, topic: rules.TopicCorrectness, fix: "handle or log the exception instead of passing"},
	"B112": {title: "try/except/continue", severity: voting.SeverityLow, topic: rules.TopicCorrectness, fix: "handle or log the exception instead of continuing"},
	"B201": {title: "Flask app run with debug=True", severity: voting.SeverityHigh, fix: "never run Flask with debug=True outside development: the debugger executes code sent to it"},
	"B301": {title: "pickle deserialisation", severity: voting.SeverityMedium, fix: "deserialise untrusted data with a data-only format (json) instead of pickle"},
	"B302": {title: "marshal deserialisation", severity: voting.SeverityMedium, fix: "deserialise untrusted data with a data-only format (json) instead of marshal"},
	"B303": {title: "MD5 or SHA-1 used", severity: voting.SeverityLow, fix: "use SHA-256 or stronger where the digest must resist attack (bcrypt/argon2 for passwords)"},
	"B304": {title: "insecure cipher", severity: voting.SeverityHigh, fix: "use AES-GCM or ChaCha20-Poly1305"},
	"B305": {title: "insecure cipher mode", severity: voting.SeverityMedium, fix: "use an authenticated mode (GCM) instead of ECB"},
	"B306": {title: "mktemp used", severity: voting.SeverityMedium, fix: "use tempfile.mkstemp or NamedTemporaryFile: mktemp races"},
	"B307": {title: "eval used", severity: voting.SeverityHigh, fix: "use ast.literal_eval for literals, or parse the input explicitly; never eval it"},
	"B308": {title: "mark_safe used", severity: voting.SeverityMedium, fix: "escape the value instead of marking it safe"},
	"B309": {title: "HTTPSConnection without certificate checks", severity: voting.SeverityLow, fix: "pass an ssl context that verifies certificates"},
	"B310": {title: "urlopen with a scheme not checked", severity: voting.SeverityLow, fix: "check the URL's scheme (http/https only) before urlopen"},
	"B311": {title: "non-cryptographic random generator", severity: voting.SeverityLow, fix: "draw security-relevant values from the secrets module"},
	"B312": {title: "telnet used", severity: voting.SeverityMedium, fix: "use SSH instead of telnet"},
	"B313": {title: "XML parsed with xml.etree.cElementTree", severity: voting.SeverityLow, fix: "parse untrusted XML with defusedxml"},
	"B314": {title: "XML parsed with xml.etree.ElementTree", severity: voting.SeverityLow, fix: "parse untrusted XML with defusedxml"},
	"B315": {title: "XML parsed with xml.sax.expatreader", severity: voting.SeverityLow, fix: "parse untrusted XML with defusedxml"},
	"B316": {title: "XML parsed with xml.dom.expatbuilder", severity: voting.SeverityLow, fix: "parse untrusted XML with defusedxml"},
	"B317": {title: "XML parsed with xml.sax", severity: voting.SeverityLow, fix: "parse untrusted XML with defusedxml"},
	"B318": {title: "XML parsed with xml.dom.minidom", severity: voting.SeverityLow, fix: "parse untrusted XML with defusedxml"},
	"B319": {title: "XML parsed with xml.dom.pulldom", severity: voting.SeverityLow, fix: "parse untrusted XML with defusedxml"},
	"B320": {title: "XML parsed with lxml.etree", severity: voting.SeverityLow, fix: "parse untrusted XML with defusedxml"},
	"B321": {title: "FTP used", severity: voting.SeverityLow, fix: "use SFTP or FTPS instead of plain FTP"},
	"B322": {title: "input() on Python 2", severity: voting.SeverityLow, fix: "use raw_input on Python 2 (input evaluates what is typed)"},
	"B323": {title: "unverified SSL context", severity: voting.SeverityHigh, fix: "use ssl.create_default_context(), which verifies certificates"},
	"B324": {title: "hashlib.new with an insecure hash", severity: voting.SeverityLow, fix: "use SHA-256 or stronger where the digest must resist attack"},
	"B325": {title: "os.tempnam used", severity: voting.SeverityMedium, fix: "use tempfile.mkstemp"},
	"B501": {title: "request with certificate verification off", severity: voting.SeverityHigh, fix: "keep verify=True; trust a private CA with verify=PATH_TO_BUNDLE"},
	"B502": {title: "SSL/TLS with an insecure protocol version", severity: voting.SeverityHigh, fix: "use ssl.PROTOCOL_TLS_CLIENT with TLS 1.2 or later"},
	"B503": {title: "SSL/TLS default with an insecure protocol version", severity: voting.SeverityMedium, fix: "default to TLS 1.2 or later"},
	"B504": {title: "SSL/TLS without a protocol version", severity: voting.SeverityLow, fix: "name a protocol version of TLS 1.2 or later"},
	"B505": {title: "weak cryptographic key", severity: voting.SeverityHigh, fix: "use RSA/DSA keys of 2048 bits or more, EC keys of 224 bits or more"},
	"B506": {title: "yaml.load without a safe loader", severity: voting.SeverityHigh, fix: "use yaml.safe_load (or Loader=yaml.SafeLoader)"},
	"B507": {title: "SSH host key not verified", severity: voting.SeverityHigh, fix: "reject unknown host keys (paramiko.RejectPolicy) and load known_hosts"},
	"B601": {title: "paramiko exec_command", severity: voting.SeverityMedium, fix: "run fixed commands over SSH; quote every argument with shlex.quote"},
	"B602": {title: "subprocess with shell=True", severity: voting.SeverityHigh, fix: "pass the command as a list without shell=True, and check input against an allowlist"},
	"B604": {title: "function called with shell=True", severity: voting.SeverityMedium, fix: "run commands without a shell"},
	"B605": {title: "process started with a shell", severity: voting.SeverityHigh, fix: "use subprocess with an argument list instead of os.system/os.popen"},
	"B608": {title: "SQL built from strings", severity: voting.SeverityMedium, fix: "use a parameterised query: placeholders in the SQL, values as arguments"},
	"B609": {title: "wildcard in a command (wildcard injection)", severity: voting.SeverityMedium, fix: "pass explicit file names, or end options with -- before the wildcard"},
	"B610": {title: "Django QuerySet.extra", severity: voting.SeverityMedium, fix: "use the ORM's filters instead of extra() with SQL text"},
	"B611": {title: "Django RawSQL", severity: voting.SeverityMedium, fix: "use the ORM, or RawSQL with params instead of formatted SQL"},
	"B701": {title: "jinja2 autoescape off", severity: voting.SeverityHigh, fix: "create the Environment with autoescape=select_autoescape() (or True)"},
	"B702": {title: "Mako templates (no escaping by default)", severity: voting.SeverityMedium, fix: "escape values in Mako templates (default_filters=['h'])"},
	"B703": {title: "Django mark_safe", severity: voting.SeverityMedium, fix: "escape the value with format_html instead of mark_safe"},
}

func registerBandit() {
	for id, r := range banditRules {
		if r.topic == "" {
			r.topic = rules.TopicSecurity
		}
		switch id[:2] {
		case "B3":
			r.url = "https://bandit.readthedocs.io/en/latest/blacklists/blacklist_calls.html"
		default:
			r.url = "https://bandit.readthedocs.io/en/latest/plugins/index.html"
		}
		banditRules[id] = r
	}
	externalCatalogs[SourceBandit] = banditRules
	otherURLs[SourceBandit] = "https://bandit.readthedocs.io/en/latest/plugins/index.html"
	otherTopics[SourceBandit] = rules.TopicSecurity
}
