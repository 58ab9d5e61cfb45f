//go:build !race

package main

// raceDetector is off.
const raceDetector = false
