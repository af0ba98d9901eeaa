package main

import "github.com/kandra-go/kandra"

type E struct{ ID string }

func (e *E) Describe(s *kandra.Schema[E]) { kandra.GeneratedUUID(s, &e.ID, kandra.UUIDRandom) }

func main() {}
