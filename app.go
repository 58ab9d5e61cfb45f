// Package debatebot holds what the binary embeds from the repository's top: app.yml, the
// GitHub App's manifest, from which serve's setup page registers the App.
package debatebot

import _ "embed"

// AppManifest is app.yml: the App's name, description, permissions and events.
//
//go:embed app.yml
var AppManifest []byte
