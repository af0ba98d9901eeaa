package main

import (
	"time"

	"github.com/kandra-go/kandra"
)

type E struct{ Deleted string }

func (e *E) Describe(s *kandra.Schema[E]) {
	s.Table("e", kandra.SoftDelete(60*time.Second, &e.Deleted))
}

func main() {}
