// Package integrity is kandra's integrity storm: writer processes move
// unique and non-unique lookup values among versioned entities on a real
// node, some of them killed (SIGKILL) at random points and between a
// unique claim and its primary write, and the history of their versioned
// writes is checked for linearizability per key with porcupine. It is a
// module of its own so that porcupine reaches no other module. See
// storm_test.go.
package integrity
