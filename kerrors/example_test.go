package kerrors_test

import (
	"errors"
	"fmt"
	"io"

	"github.com/kandra-go/kandra/kerrors"
)

func Example() {
	// What a repository might return: a kandra error, wrapped by the caller.
	var err error = fmt.Errorf("transfer: %w", &kerrors.OptimisticLockError{
		Message:    "version 7 expected, row has 8",
		EntityType: "model.Wallet",
		Key:        "w-42",
	})

	// errors.Is with a sentinel tests the kind (or any kandra error).
	fmt.Println(errors.Is(err, kerrors.ErrOptimisticLock), errors.Is(err, kerrors.ErrKandra), errors.Is(err, kerrors.ErrQuery))

	// errors.As reaches the fields.
	var conflict *kerrors.OptimisticLockError
	if errors.As(err, &conflict) {
		fmt.Println("retry", conflict.EntityType, conflict.Key)
	}

	// Kinds with a cause unwrap to it.
	err = &kerrors.QueryError{Message: "read failed", Cause: io.ErrUnexpectedEOF}
	fmt.Println(err)
	fmt.Println(errors.Is(err, io.ErrUnexpectedEOF))
	// Output:
	// true true false
	// retry model.Wallet w-42
	// kandra: query: read failed: unexpected EOF
	// true
}

func ExampleValidationError() {
	err := &kerrors.ValidationError{Errors: []kerrors.FieldError{
		{Field: "email", Message: "must not be blank"},
		{Field: "age", Message: "must be >= 0"},
	}}
	fmt.Println(err)
	fmt.Println(errors.Is(err, kerrors.ErrValidation))
	// Output:
	// Validation failed: email: must not be blank; age: must be >= 0
	// true
}
