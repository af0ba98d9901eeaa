package main

import "github.com/kandra-go/kandra"

type E struct{ Created string }

func (e *E) Describe(s *kandra.Schema[E]) { kandra.CreatedAt(s, &e.Created) }

func main() {}
