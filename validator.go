package kandra

import "github.com/kandra-go/kandra/kerrors"

// FieldError is one validation failure: a field and what is wrong with it.
type FieldError = kerrors.FieldError

// Validator checks an entity before the runtime writes it. An empty result
// means valid; there is no separate boolean.
type Validator[T any] interface {
	Validate(e *T) []FieldError
}

// ValidatorFunc adapts a function to Validator.
type ValidatorFunc[T any] func(e *T) []FieldError

// Validate calls f.
func (f ValidatorFunc[T]) Validate(e *T) []FieldError { return f(e) }
