// Package pipeline is the one review pipeline: read the change, gather its evidence, debate it,
// keep it and publish it. It is written once against small interfaces (the Source of the change,
// the Publisher of the debate, the Keeper of its checkpoints), which the App, the Action and the
// CLI implement; nothing in it knows GitHub.
package pipeline
