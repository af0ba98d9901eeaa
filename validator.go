package kandra

import kerrors "github.com/kandra-go/kandra/errors"

// FieldError is one validation failure: a field and what is wrong with it.
type FieldError = kerrors.FieldError

// Validator checks an entity before a runtime writes it. An empty result
// means valid; there is no separate boolean.
type Validator[T any] interface {
	Validate(e *T) []FieldError
}

// ValidatorFunc adapts a function to Validator.
type ValidatorFunc[T any] func(e *T) []FieldError

// Validate calls f.
func (f ValidatorFunc[T]) Validate(e *T) []FieldError { return f(e) }

// Validate runs the validators attached in Describe (Schema.Validate), in
// order, and returns a *errors.ValidationError holding every failure, or
// nil when there is none. Its message is the Kotlin library's:
// "Validation failed: field: message; field: message".
func (t *Table[T]) Validate(e *T) error {
	var all []FieldError
	for _, v := range t.validators {
		all = append(all, v.Validate(e)...)
	}
	if len(all) == 0 {
		return nil
	}
	return &kerrors.ValidationError{Errors: all}
}
