package appsetup

import (
	"html/template"
	"net/http"
	"sort"
)

// pageData is what the setup page shows: the form that posts the manifest to GitHub.
type pageData struct {
	Action, Manifest, Org, Token string
	M                            *Manifest
}

// permissions lists the manifest's permissions as "name: access", sorted.
func (p *pageData) Permissions() []string {
	var out []string
	for k, v := range p.M.DefaultPermissions {
		out = append(out, k+": "+v)
	}
	sort.Strings(out)
	return out
}

var pageTmpl = template.Must(template.New("setup").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}} · debatebot</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
code{background:#f6f8fa;padding:.1em .3em;border-radius:4px}button{font-size:1rem;padding:.5rem 1rem;background:#1f883d;color:#fff;border:0;border-radius:6px;cursor:pointer}
fieldset{border:1px solid #d0d7de;border-radius:6px;margin:1rem 0}ul{columns:2}</style></head>
<body><h1>{{.Title}}</h1>
{{if .Message}}<p>{{.Message}}</p>{{end}}
{{with .Page}}
<p>debatebot will be registered as a GitHub App {{if .Org}}of the organisation <strong>{{.Org}}</strong>{{else}}of your account{{end}},
named <strong>{{.M.Name}}</strong>, receiving webhooks at <code>{{.M.HookAttributes.URL}}</code>. GitHub shows what it asks for and lets you change the name before you create it; it then sends you back here, and debatebot stores the App's id, key and secrets and starts serving.</p>
<form method="post" action="{{.Action}}">
<input type="hidden" name="manifest" value="{{.Manifest}}">
<button type="submit">Create the GitHub App on GitHub</button>
</form>
<fieldset><legend>For an organisation, or under another name</legend>
<form method="get" action="/setup">
<input type="hidden" name="token" value="{{.Token}}">
<label>Organisation <input name="org" value="{{.Org}}" placeholder="your-org"></label>
<label>Name <input name="name" value="{{.M.Name}}"></label>
<button type="submit">Update</button>
</form></fieldset>
<h2>Permissions</h2><ul>{{range .Permissions}}<li><code>{{.}}</code></li>{{end}}</ul>
<h2>Events</h2><ul>{{range .M.DefaultEvents}}<li><code>{{.}}</code></li>{{end}}</ul>
{{end}}
</body></html>
`))

// render writes the page: a title and a message (trusted HTML, escaped by the callers), or the
// setup form.
func (s *Setup) render(w http.ResponseWriter, status int, title, message string, p *pageData) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := pageTmpl.Execute(w, map[string]any{"Title": title, "Message": template.HTML(message), "Page": p}); err != nil {
		s.opts.Log.Warn().Err(err).Msg("The setup page could not be written.")
	}
}
