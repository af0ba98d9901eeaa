//go:build !race

package kgocql_test

const raceEnabled = false
