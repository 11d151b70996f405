//go:build race

package grzybcio

// raceEnabled: the race detector's shadow memory makes a heap measurement
// meaningless.
const raceEnabled = true
