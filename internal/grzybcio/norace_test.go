//go:build !race

package grzybcio

const raceEnabled = false
