//go:build !race

package kstore

const raceEnabled = false
