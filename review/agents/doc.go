// Package agents holds the debate's participants: the stakeholder perspectives, the offline agents
// that argue from the evidence by rules, the model-backed agents and their prompts, the moderators
// that seat a panel, and the model side of the dialectic layer.
package agents
