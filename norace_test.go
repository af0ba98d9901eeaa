//go:build !race

package kandra_test

const raceEnabled = false
