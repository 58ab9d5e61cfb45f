package config

import (
	"encoding/json"
	"fmt"

	"github.com/invopop/jsonschema"
)

// JSONSchema describes a duration to editors.
func (Duration) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Pattern: `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`, Description: "a duration such as 90s, 10m or 1h30m"}
}

// Schema is the JSON Schema of .github/debatebot.yml, derived from Repo, for editors to check the
// file (.github/debatebot.schema.json is generated from it).
func Schema() ([]byte, error) {
	r := jsonschema.Reflector{FieldNameTag: "yaml", AllowAdditionalProperties: false, RequiredFromJSONSchemaTags: true, DoNotReference: true}
	s := r.Reflect(&Repo{})
	s.ID = "https://github.com/debatebot/debatebot/.github/debatebot.schema.json"
	s.Title = "debatebot repository configuration (.github/debatebot.yml)"
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("failed to encode the configuration schema: %w", err)
	}
	return append(b, '\n'), nil
}
