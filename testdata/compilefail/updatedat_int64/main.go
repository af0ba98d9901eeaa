package main

import "github.com/kandra-go/kandra"

type E struct{ Updated int64 }

func (e *E) Describe(s *kandra.Schema[E]) { kandra.UpdatedAt(s, &e.Updated) }

func main() {}
