package main

import "github.com/kandra-go/kandra"

type E struct{ ID string }
type F struct{ ID string }

func (e *E) Describe(s *kandra.Schema[F]) {}

func main() { _, _ = kandra.Register[E]() }
