package main

import "github.com/kandra-go/kandra"

type E struct{ Hits int32 }

func (e *E) Describe(s *kandra.Schema[E]) { kandra.Counter(s, &e.Hits) }

func main() {}
