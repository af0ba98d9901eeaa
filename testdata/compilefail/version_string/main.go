package main

import "github.com/kandra-go/kandra"

type E struct{ Ver string }

func (e *E) Describe(s *kandra.Schema[E]) { kandra.Version(s, &e.Ver) }

func main() {}
