package main

import "github.com/kandra-go/kandra"

type E struct{ ID string }

func main() { _, _ = kandra.Register[E]() }
