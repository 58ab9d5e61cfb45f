//go:build race

package main

// raceDetector is on: tests that push megabytes through regexps scale down.
const raceDetector = true
