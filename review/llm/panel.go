package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/invopop/jsonschema"
	"github.com/openai/openai-go"

	"github.com/debatebot/debatebot/review/evidence/scan"
)

// PanelReply is what a model answers when it speaks for the whole panel in one call: the turn of
// every member that speaks in the phases the call covers (an opening; a round's rebuttals,
// clarifications and responses; the final arguments and the synthesis).
type PanelReply struct {
	Turns []PanelTurn `json:"turns" jsonschema_description:"One turn per member and phase, in the order of the phases"`
}

// PanelTurn is one member's turn in one phase of a panel call.
type PanelTurn struct {
	Agent     string          `json:"agent" jsonschema_description:"The abbreviation of the panel member who speaks, exactly as the panel gives it"`
	Phase     string          `json:"phase" jsonschema:"enum=opening_arguments,enum=rebuttal,enum=clarification,enum=response,enum=final_arguments,enum=design_review,enum=synthesis"`
	Arguments []ReplyArgument `json:"arguments" jsonschema_description:"The member's arguments in this phase, each in the Toulmin form; a response written in the same reply as the clarification it answers targets the argument that clarification defends"`
	Position  ReplyPosition   `json:"position" jsonschema_description:"The member's stance after this phase"`
	Synthesis ReplySynthesis  `json:"synthesis" jsonschema_description:"Maintainers in the synthesis phase only; empty lists and text otherwise"`
}

// PanelSchema is the JSON schema of PanelReply for structured outputs.
var PanelSchema = Schema(&PanelReply{})

// Schema is the strict structured-output schema of v's type: no additional properties, no
// references.
func Schema(v any) map[string]any {
	r := jsonschema.Reflector{AllowAdditionalProperties: false, DoNotReference: true}
	b, err := json.Marshal(r.Reflect(v))
	if err != nil {
		panic(fmt.Sprintf("review: the schema of %T does not encode: %v", v, err))
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(fmt.Sprintf("review: the schema of %T does not decode: %v", v, err))
	}
	delete(m, "$schema")
	delete(m, "$id")
	return m
}

// ParsePanelReply reads a panel call's reply, as ParseReply reads a turn's.
func ParsePanelReply(content string) (*PanelReply, error) {
	var r PanelReply
	if err := Decode(content, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Decode reads the outermost JSON object of a reply into v.
func Decode(content string, v any) error {
	s, err := OutermostObject(content)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return fmt.Errorf("the reply is not valid JSON for the schema: %w", err)
	}
	return nil
}

// OutermostObject is the outermost JSON object of a reply: servers that ignore the schema may
// wrap it in a code fence or prose.
func OutermostObject(content string) (string, error) {
	s := strings.TrimSpace(content)
	if s == "" {
		return "", errors.New("the reply is empty")
	}
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j <= i {
		return "", fmt.Errorf("the reply is not a JSON object: %q", scan.Clip(s, 80))
	}
	return s[i : j+1], nil
}

// Reply is the panel turn as one agent's reply, each argument's target rewritten by target (a
// response written in the same call as the clarification it answers cannot name its id).
func (t *PanelTurn) Reply(target func(string) string) *Reply {
	r := &Reply{Position: t.Position, Synthesis: t.Synthesis}
	for _, a := range t.Arguments {
		if target != nil {
			a.Target = target(strings.TrimSpace(a.Target))
		}
		r.Arguments = append(r.Arguments, a)
	}
	return r
}

// CompletePanel makes one panel call (Panel), its reply held to PanelSchema.
func (cl *Client) CompletePanel(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion, limit int, cacheKey string) Completion {
	return cl.Panel(ctx, msgs, limit, cacheKey, "debate_panel", PanelSchema)
}

// Panel makes one call that speaks for the whole panel, its reply held to the schema of that
// name, with Complete's retries except one: a request that times out is not asked again. The
// reply carries every member's turns, so it is the longest a debate asks for; a model too slow
// to write it within the request timeout is asked for each member's turn alone instead.
func (cl *Client) Panel(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion, limit int, cacheKey, name string, schema map[string]any) Completion {
	return cl.call(ctx, cl.params(msgs, limit, cacheKey, name, schema), false)
}

// Structured makes one call with Complete's retries, its reply held to the schema of that name.
func (cl *Client) Structured(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion, limit int, cacheKey, name string, schema map[string]any) Completion {
	return cl.Call(ctx, cl.params(msgs, limit, cacheKey, name, schema))
}
