package kerrors_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/kandra-go/kandra/kerrors"
)

var sentinels = map[string]error{
	"ErrSchema":         kerrors.ErrSchema,
	"ErrQuery":          kerrors.ErrQuery,
	"ErrAuth":           kerrors.ErrAuth,
	"ErrOptimisticLock": kerrors.ErrOptimisticLock,
	"ErrMigration":      kerrors.ErrMigration,
	"ErrValidation":     kerrors.ErrValidation,
	"ErrNotFound":       kerrors.ErrNotFound,
	"ErrArgument":       kerrors.ErrArgument,
	"ErrUnique":         kerrors.ErrUnique,
	"ErrValue":          kerrors.ErrValue,
}

// causes are the sentinels that are the cause of an error of the family
// (a *QueryError's), not a kind of their own.
var causes = map[string]error{
	"ErrBatchTooLarge":  kerrors.ErrBatchTooLarge,
	"ErrClosed":         kerrors.ErrClosed,
	"ErrUnknownOutcome": kerrors.ErrUnknownOutcome,
}

// kinds has one value of every type of the family, with the name of its
// own sentinel and a function that tries errors.As to its concrete type.
var kinds = []struct {
	name     string
	err      error
	sentinel string
	as       func(error) bool
}{
	{"QueryError", &kerrors.QueryError{Message: "m"}, "ErrQuery",
		func(err error) bool { var e *kerrors.QueryError; return errors.As(err, &e) }},
	{"AuthError", &kerrors.AuthError{Message: "m"}, "ErrAuth",
		func(err error) bool { var e *kerrors.AuthError; return errors.As(err, &e) }},
	{"OptimisticLockError", &kerrors.OptimisticLockError{Message: "m", EntityType: "model.Wallet", Key: 1}, "ErrOptimisticLock",
		func(err error) bool { var e *kerrors.OptimisticLockError; return errors.As(err, &e) }},
	{"MigrationError", &kerrors.MigrationError{Message: "m"}, "ErrMigration",
		func(err error) bool { var e *kerrors.MigrationError; return errors.As(err, &e) }},
	{"ValidationError", &kerrors.ValidationError{Errors: []kerrors.FieldError{{Field: "f", Message: "m"}}}, "ErrValidation",
		func(err error) bool { var e *kerrors.ValidationError; return errors.As(err, &e) }},
	{"NotFoundError", &kerrors.NotFoundError{Table: "users", Key: 1}, "ErrNotFound",
		func(err error) bool { var e *kerrors.NotFoundError; return errors.As(err, &e) }},
	{"ArgumentError", &kerrors.ArgumentError{Op: "Save on users", Arg: "Timestamp", Message: "m"}, "ErrArgument",
		func(err error) bool { var e *kerrors.ArgumentError; return errors.As(err, &e) }},
	{"UniqueError", &kerrors.UniqueError{Table: "users", Lookup: "users_by_email", Value: "a@b", Holder: 1}, "ErrUnique",
		func(err error) bool { var e *kerrors.UniqueError; return errors.As(err, &e) }},
	{"ValueError", &kerrors.ValueError{Table: "users", Column: "seen", Type: "timestamp", Value: "300000000-01-01", Reason: "r"}, "ErrValue",
		func(err error) bool { var e *kerrors.ValueError; return errors.As(err, &e) }},
}

func TestErrorKinds(t *testing.T) {
	// ErrSchema's kinds live in package kandra, beside the schema they
	// describe; its TestErrorFamily covers them.
	if len(kinds) != len(sentinels)-1 {
		t.Fatalf("%d kinds but %d sentinels", len(kinds), len(sentinels))
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			wrapped := fmt.Errorf("outer: %w", fmt.Errorf("middle: %w", k.err))
			for _, err := range []error{k.err, wrapped} {
				if !errors.Is(err, kerrors.ErrKandra) {
					t.Errorf("errors.Is(%v, ErrKandra) = false", err)
				}
				for name, s := range sentinels {
					if got, want := errors.Is(err, s), name == k.sentinel; got != want {
						t.Errorf("errors.Is(%v, %s) = %v, want %v", err, name, got, want)
					}
				}
				for name, s := range causes {
					if errors.Is(err, s) {
						t.Errorf("errors.Is(%v, %s) = true without that cause", err, name)
					}
				}
				if !k.as(err) {
					t.Errorf("errors.As(%v) to *%s failed", err, k.name)
				}
				// Only its own type matches errors.As.
				for _, other := range kinds {
					if other.name != k.name && other.as(err) {
						t.Errorf("errors.As(%v) matched *%s", err, other.name)
					}
				}
				if errors.Is(err, io.EOF) {
					t.Errorf("errors.Is(%v, io.EOF) = true without a cause", err)
				}
			}
		})
	}
}

func TestSentinelsAreDistinct(t *testing.T) {
	all := map[string]error{}
	for n, s := range sentinels {
		all[n] = s
	}
	for n, s := range causes {
		all[n] = s
	}
	for n1, s1 := range all {
		//lint:ignore SA1032 both directions are checked on purpose: neither sentinel may match the other.
		if errors.Is(s1, kerrors.ErrKandra) || errors.Is(kerrors.ErrKandra, s1) {
			t.Errorf("sentinel %s and ErrKandra match each other; only errors of the family match both", n1)
		}
		for n2, s2 := range all {
			if n1 != n2 && (s1 == s2 || s1.Error() == s2.Error()) {
				t.Errorf("sentinels %s and %s are not distinct", n1, n2)
			}
		}
	}
}

func TestUnwrapToCause(t *testing.T) {
	cause := fmt.Errorf("read frame: %w", io.EOF)
	tests := []struct {
		name string
		err  interface {
			error
			Unwrap() error
		}
		want string
	}{
		{"QueryError", &kerrors.QueryError{Message: "select failed", Cause: cause}, "kandra: query: select failed: read frame: EOF"},
		{"AuthError", &kerrors.AuthError{Message: "login refused", Cause: cause}, "kandra: auth: login refused: read frame: EOF"},
		{"MigrationError", &kerrors.MigrationError{Message: "step 3", Cause: cause}, "kandra: migration: step 3: read frame: EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err.Unwrap() != cause {
				t.Errorf("Unwrap() = %v, want the cause", tt.err.Unwrap())
			}
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			wrapped := fmt.Errorf("repo: %w", tt.err)
			if !errors.Is(wrapped, io.EOF) {
				t.Errorf("errors.Is(io.EOF) does not see through to the cause")
			}
			if !errors.Is(wrapped, kerrors.ErrKandra) {
				t.Errorf("wrapping with a cause lost ErrKandra")
			}
		})
	}
	// Without a cause, the message has no trailing separator and Unwrap is nil.
	q := &kerrors.QueryError{Message: "timeout"}
	if q.Error() != "kandra: query: timeout" || q.Unwrap() != nil {
		t.Errorf("QueryError without cause: %q, %v", q.Error(), q.Unwrap())
	}
}

// TestUnknownOutcomeIsACause: the error of a write whose answer was lost
// (an adapter wraps its driver's error with ErrUnknownOutcome, the runtime
// wraps that in a *QueryError) matches ErrUnknownOutcome, ErrQuery,
// ErrKandra and the driver's error, and never a conflict.
func TestUnknownOutcomeIsACause(t *testing.T) {
	driverErr := errors.New("gocql: no response received from cassandra within timeout period")
	err := fmt.Errorf("update: %w", &kerrors.QueryError{Message: "Update on wallets failed",
		Cause: fmt.Errorf("%w: %w", kerrors.ErrUnknownOutcome, driverErr)})
	for _, want := range []error{kerrors.ErrUnknownOutcome, kerrors.ErrQuery, kerrors.ErrKandra, driverErr} {
		if !errors.Is(err, want) {
			t.Errorf("errors.Is(%v, %v) = false", err, want)
		}
	}
	for name, s := range sentinels {
		if name != "ErrQuery" && errors.Is(err, s) {
			t.Errorf("errors.Is(%v, %s) = true", err, name)
		}
	}
	var ol *kerrors.OptimisticLockError
	if errors.As(err, &ol) {
		t.Errorf("an unknown outcome is an *OptimisticLockError: %v", err)
	}
	if want := "update: kandra: query: Update on wallets failed: kandra: write outcome unknown (it may have applied): " + driverErr.Error(); err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
}

func TestNotFoundAndArgumentMessages(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&kerrors.NotFoundError{Table: "users", Key: "k1"}, "kandra: not found: users key=k1"},
		{&kerrors.NotFoundError{Table: "users", Key: []any{1, "a"}}, "kandra: not found: users key=[1 a]"},
		{&kerrors.NotFoundError{Table: "users", Lookup: "users_by_email", Value: "a@b"}, "kandra: not found: users_by_email value=a@b"},
		{&kerrors.UniqueError{Table: "users", Lookup: "users_by_email", Value: "a@b", Holder: 7}, "kandra: unique value taken: users_by_email value=a@b is held by 7"},
		{&kerrors.UniqueError{Lookup: "users_by_email", Value: "a@b", Holder: 7, Pending: true}, "kandra: unique value taken: users_by_email value=a@b is being claimed by 7 (retry later)"},
		{&kerrors.ArgumentError{Op: "List on todos", Arg: "PageSize", Message: "0 is not in 1 to 2147483647"},
			"kandra: invalid argument: List on todos: PageSize: 0 is not in 1 to 2147483647"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestValidationErrorMessage(t *testing.T) {
	err := &kerrors.ValidationError{Errors: []kerrors.FieldError{
		{Field: "email", Message: "must not be blank"},
		{Field: "age", Message: "must be >= 0"},
	}}
	if got, want := err.Error(), "Validation failed: email: must not be blank; age: must be >= 0"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	one := &kerrors.ValidationError{Errors: []kerrors.FieldError{{Field: "email", Message: "must not be blank"}}}
	if got, want := one.Error(), "Validation failed: email: must not be blank"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := (kerrors.FieldError{Field: "age", Message: "must be >= 0"}).String(); got != "age: must be >= 0" {
		t.Errorf("FieldError.String() = %q", got)
	}
	var ve *kerrors.ValidationError
	if !errors.As(fmt.Errorf("save: %w", err), &ve) || len(ve.Errors) != 2 || ve.Errors[1].Field != "age" {
		t.Errorf("errors.As did not give back the field errors: %+v", ve)
	}
}

func TestOptimisticLockErrorFields(t *testing.T) {
	type key struct {
		WalletID string
		Currency string
	}
	err := fmt.Errorf("update: %w", &kerrors.OptimisticLockError{
		Message:    "version 3 expected, row has 4",
		EntityType: "model.Wallet",
		Key:        key{"w-1", "EUR"},
	})
	var ol *kerrors.OptimisticLockError
	if !errors.As(err, &ol) {
		t.Fatal("errors.As failed")
	}
	if ol.EntityType != "model.Wallet" || ol.Key != (key{"w-1", "EUR"}) {
		t.Errorf("EntityType %q, Key %v", ol.EntityType, ol.Key)
	}
	want := "update: kandra: optimistic lock conflict on model.Wallet key={w-1 EUR}: version 3 expected, row has 4"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
}
