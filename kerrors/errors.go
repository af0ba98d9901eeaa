// Package kerrors is kandra's error family: one Go type per kind of
// failure.
//
// Every error of the family matches [ErrKandra] with the standard library's
// errors.Is, and each kind also matches its own sentinel ([ErrSchema],
// [ErrQuery], [ErrAuth], [ErrOptimisticLock], [ErrMigration],
// [ErrValidation], [ErrNotFound], [ErrArgument], [ErrUnique], [ErrValue]).
// Use errors.As to reach the concrete type and its fields. Kinds that wrap
// a cause ([QueryError], [AuthError], [MigrationError]) unwrap to it, so
// errors.Is also sees through to the cause: [ErrBatchTooLarge],
// [ErrClosed] and [ErrUnknownOutcome] are such causes. Every sentinel
// kandra has is declared here. It is named kerrors so that it sits beside
// the standard library's errors package without an alias.
package kerrors

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// sentinel is the type of the family's sentinels: comparable, with a fixed
// message, and never wrapped by anything.
type sentinel string

func (s sentinel) Error() string { return string(s) }

// Sentinels for errors.Is. A kandra error matches ErrKandra and the sentinel
// of its own kind.
var (
	// ErrKandra matches every error of the family.
	ErrKandra error = sentinel("kandra error")
	// ErrSchema matches the schema errors of package kandra
	// (*kandra.SchemaError, *kandra.NameError, *kandra.CQLTypeError).
	ErrSchema error = sentinel("kandra: schema error")
	// ErrQuery matches *QueryError.
	ErrQuery error = sentinel("kandra: query error")
	// ErrAuth matches *AuthError.
	ErrAuth error = sentinel("kandra: auth error")
	// ErrOptimisticLock matches *OptimisticLockError.
	ErrOptimisticLock error = sentinel("kandra: optimistic lock conflict")
	// ErrMigration matches *MigrationError.
	ErrMigration error = sentinel("kandra: migration error")
	// ErrValidation matches *ValidationError.
	ErrValidation error = sentinel("kandra: validation failed")
	// ErrNotFound matches *NotFoundError: a read found no (live, matching)
	// row.
	ErrNotFound error = sentinel("kandra: not found")
	// ErrArgument matches *ArgumentError: a call was refused before
	// anything was sent because an argument or option is out of range.
	ErrArgument error = sentinel("kandra: invalid argument")
	// ErrUnique matches *UniqueError: a unique lookup value is held by
	// another entity.
	ErrUnique error = sentinel("kandra: unique value taken")
	// ErrBatchTooLarge is the cause of the *QueryError of a batch refused
	// before sending because its values exceed the batch limit (nothing
	// was written).
	ErrBatchTooLarge error = sentinel("kandra: batch too large")
	// ErrClosed is the cause of the *QueryError of a call made after the
	// store's Close (nothing was sent).
	ErrClosed error = sentinel("kandra: store closed")
	// ErrUnknownOutcome is the cause of the *QueryError of a write that
	// must not be sent twice (a lightweight transaction: a versioned
	// write, SaveIfNotExists, a unique claim; a counter update; a batch
	// or write of a non-frozen list at an explicit timestamp) whose answer
	// was lost after it was sent: a client timeout, a server write
	// timeout, a lost connection, a context done while waiting. The write
	// may or may not have applied. It is never reported as a conflict or
	// as not applied, and the unique values the call claimed stay claimed.
	// To resolve it, read the row at SERIAL or LOCAL_SERIAL consistency
	// (which completes a lightweight transaction still in progress), then
	// decide: the row holds what was written (it applied) or not (write
	// again). An increment cannot be told apart by a read while others
	// update the counter: count it as possibly applied, never send it
	// again blindly.
	ErrUnknownOutcome error = sentinel("kandra: write outcome unknown (it may have applied)")
	// ErrValue matches *ValueError: a value has no exact form in its
	// column's CQL type (written), or a stored cell has none in the
	// field's Go type (read).
	ErrValue error = sentinel("kandra: value out of range")
)

// isKind reports whether target is the family sentinel or the kind's own.
func isKind(target, kind error) bool { return target == ErrKandra || target == kind }

// QueryError reports a failed statement. Cause is the driver's error, if any.
type QueryError struct {
	// Message says which statement failed and how.
	Message string
	// Cause is the underlying error, or nil.
	Cause error
}

// Error renders "kandra: query: message: cause".
func (e *QueryError) Error() string { return withCause("kandra: query: "+e.Message, e.Cause) }

// Is matches ErrQuery and ErrKandra.
func (e *QueryError) Is(target error) bool { return isKind(target, ErrQuery) }

// Unwrap returns the cause.
func (e *QueryError) Unwrap() error { return e.Cause }

// AuthError reports credentials that could not be obtained or were refused.
// Its message never contains a password.
type AuthError struct {
	// Message says what failed, naming the source (an environment
	// variable, a file path) but never a secret.
	Message string
	// Cause is the underlying error (for example an *fs.PathError), or nil.
	Cause error
}

// Error renders "kandra: auth: message: cause".
func (e *AuthError) Error() string { return withCause("kandra: auth: "+e.Message, e.Cause) }

// Is matches ErrAuth and ErrKandra.
func (e *AuthError) Is(target error) bool { return isKind(target, ErrAuth) }

// Unwrap returns the cause.
func (e *AuthError) Unwrap() error { return e.Cause }

// OptimisticLockError reports a conditional update whose version check
// failed: another writer changed the row first.
type OptimisticLockError struct {
	// Message says what the check expected.
	Message string
	// EntityType is the Go type name of the entity, for example "model.Wallet".
	EntityType string
	// Key is the primary key of the row that was being updated.
	Key any
}

// Error renders "kandra: optimistic lock conflict on model.Wallet key=K: message".
func (e *OptimisticLockError) Error() string {
	return fmt.Sprintf("kandra: optimistic lock conflict on %s key=%v: %s", e.EntityType, e.Key, e.Message)
}

// Is matches ErrOptimisticLock and ErrKandra.
func (e *OptimisticLockError) Is(target error) bool { return isKind(target, ErrOptimisticLock) }

// MigrationError reports a schema migration step that failed.
type MigrationError struct {
	// Message says which step failed.
	Message string
	// Rule is the kandra rule (a kandra.Rule, for example "tablets") the
	// failure falls under, when the migrator recognises it: a server the
	// keyspace does not target, or a server's refusal no schema can show
	// (a ScyllaDB keyspace that is not RF-rack-valid, a cluster feature
	// not yet on every node). "" otherwise.
	Rule string
	// Cause is the underlying error, or nil.
	Cause error
}

// Error renders "kandra: migration: message: cause".
func (e *MigrationError) Error() string { return withCause("kandra: migration: "+e.Message, e.Cause) }

// Is matches ErrMigration and ErrKandra.
func (e *MigrationError) Is(target error) bool { return isKind(target, ErrMigration) }

// Unwrap returns the cause.
func (e *MigrationError) Unwrap() error { return e.Cause }

// FieldError is one validation failure: the field (as the caller names it,
// usually the CQL column or Go field) and what is wrong with it.
type FieldError struct {
	// Field names the field that failed.
	Field string
	// Message says what is wrong with it.
	Message string
}

// String renders "field: message".
func (f FieldError) String() string { return f.Field + ": " + f.Message }

// ValidationError carries every failure a validator reported for one entity.
type ValidationError struct {
	// Errors lists the failures in the order the validator reported them.
	Errors []FieldError
}

// Error renders "Validation failed: field: message; field: message".
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("Validation failed: ")
	for i, f := range e.Errors {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Field)
		b.WriteString(": ")
		b.WriteString(f.Message)
	}
	return b.String()
}

// Is matches ErrValidation and ErrKandra.
func (e *ValidationError) Is(target error) bool { return isKind(target, ErrValidation) }

// NotFoundError reports a read that found no row: none with the key, a
// soft-deleted one where only live rows count, or, through a lookup, no
// entity that still holds the value. Values of Sensitive columns are
// redacted in Key and Value.
type NotFoundError struct {
	// Table is the entity's table.
	Table string
	// Key is the primary key read (one value, or a slice of the key's
	// values in key order), or nil for a read through a lookup.
	Key any
	// Lookup is the lookup table read through, or "".
	Lookup string
	// Value is the lookup value looked for (nil without Lookup).
	Value any
}

// Error renders "kandra: not found: users key=K" or "kandra: not found:
// users_by_email value=V".
func (e *NotFoundError) Error() string {
	if e.Lookup != "" {
		return fmt.Sprintf("kandra: not found: %s value=%v", e.Lookup, e.Value)
	}
	return fmt.Sprintf("kandra: not found: %s key=%v", e.Table, e.Key)
}

// Is matches ErrNotFound and ErrKandra.
func (e *NotFoundError) Is(target error) bool { return isKind(target, ErrNotFound) }

// UniqueError reports a write refused, with nothing written, because a
// value of a unique lookup (kandra.LookupUnique) is held by another live
// entity, or is being claimed by one right now (Pending). Values of
// Sensitive columns are redacted in Value and Holder.
type UniqueError struct {
	// Table is the entity's table, Lookup the unique lookup's table.
	Table, Lookup string
	// Value is the value asked for.
	Value any
	// Holder is the primary key of the entity that holds it (one value,
	// or a slice in key order).
	Holder any
	// Pending is true when the holder has claimed the value but not (yet)
	// written it: a writer in progress, or one that died, whose claim may
	// be taken over once it is older than the runtime's claim grace.
	Pending bool
}

// Error renders "kandra: unique value taken: users_by_email value=V is held
// by K".
func (e *UniqueError) Error() string {
	if e.Pending {
		return fmt.Sprintf("kandra: unique value taken: %s value=%v is being claimed by %v (retry later)", e.Lookup, e.Value, e.Holder)
	}
	return fmt.Sprintf("kandra: unique value taken: %s value=%v is held by %v", e.Lookup, e.Value, e.Holder)
}

// Is matches ErrUnique and ErrKandra.
func (e *UniqueError) Is(target error) bool { return isKind(target, ErrUnique) }

// ArgumentError reports an argument or option that a call refused before
// sending anything: a nil entity or context, an empty key, a timestamp or
// TTL out of range, a cursor of another query.
type ArgumentError struct {
	// Op is the call and its table, for example "Save on users".
	Op string
	// Arg names the argument, option or field, for example "Timestamp",
	// "PageSize" or "field Email".
	Arg string
	// Message says what is wrong and what is valid.
	Message string
}

// Error renders "kandra: invalid argument: op: arg: message".
func (e *ArgumentError) Error() string {
	return "kandra: invalid argument: " + e.Op + ": " + e.Arg + ": " + e.Message
}

// Is matches ErrArgument and ErrKandra.
func (e *ArgumentError) Is(target error) bool { return isKind(target, ErrArgument) }

// AgreementError reports that the nodes did not agree on one schema
// version in time after a schema statement. The statement itself was
// accepted by its coordinator; the cluster has not converged yet.
//
// migrate.Apply returns it wrapped, with the versions it read from
// system.local and system.peers:
//
//	var ae *kerrors.AgreementError
//	if errors.As(err, &ae) { ... ae.Versions ... }
type AgreementError struct {
	// Statement is the schema statement that was waited for, if any.
	Statement string
	// Versions are the schema versions last seen, by host.
	Versions map[string]string
	// Waited is how long the adapter waited.
	Waited time.Duration
	// Cause is the driver's error, if any.
	Cause error
}

// Error names the hosts and their versions.
func (e *AgreementError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kandra: migration: no schema agreement after %s", e.Waited.Round(time.Millisecond))
	if len(e.Versions) > 0 {
		b.WriteString(" (")
		for i, h := range slices.Sorted(maps.Keys(e.Versions)) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(h + "=" + e.Versions[h])
		}
		b.WriteString(")")
	}
	if e.Statement != "" {
		b.WriteString(" after " + e.Statement)
	}
	if e.Cause != nil {
		b.WriteString(": " + e.Cause.Error())
	}
	return b.String()
}

// Is matches kerrors.ErrMigration and kerrors.ErrKandra.
func (e *AgreementError) Is(target error) bool {
	return target == ErrMigration || target == ErrKandra
}

// Unwrap returns the cause.
func (e *AgreementError) Unwrap() error { return e.Cause }

// UDTFieldError is the failure to write a Go struct one of whose fields
// the server's user-defined type lacks, as the driver describes the type:
// the migration that adds the field has not run, or the driver prepared
// the statement before it ran (adapter.UDTFieldAdded tells). Nothing is sent:
// writing the other fields would drop the value.
type UDTFieldError struct {
	// Keyspace and Type name the server's type, as the driver describes it.
	Keyspace, Type string
	// Field is the CQL field the server's type lacks, GoField the Go
	// struct's field (pkg.Type.Field).
	Field, GoField string
	// Fields are the server's type's fields, as the driver describes them.
	Fields []string
}

// Error names the type, the field, the Go field and the way out.
func (e *UDTFieldError) Error() string {
	return fmt.Sprintf("the user-defined type %s on the server has no field %s (Go field %s; the server's fields: %s): run the migration that adds it (ALTER TYPE %s ADD %s ...) before writing; kandra does not drop a field's value",
		quoteName(e.Type), quoteName(e.Field), e.GoField, strings.Join(e.Fields, ", "), quoteName(e.Type), quoteName(e.Field))
}

// Is matches ErrQuery and ErrKandra: the write was refused before it was
// sent.
func (e *UDTFieldError) Is(target error) bool { return isKind(target, ErrQuery) }

// quoteName is a CQL name as a statement spells it: bare when it is
// lower case letters, digits and underscores after a letter, quoted
// otherwise (a reserved word that needs quotes is rare in a type's
// field, and the message is advice, never sent).
func quoteName(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func withCause(msg string, cause error) string {
	if cause == nil {
		return msg
	}
	return msg + ": " + cause.Error()
}

// ValueError reports a value that cannot cross between Go and CQL
// unchanged: on a write, a Go value outside its column's CQL type (a time
// past a TIMESTAMP's range, an address with a zone, a TIME of 24 h),
// refused before anything was sent; on a read, a stored cell the field's
// Go type cannot hold (a DURATION with months), for which the call
// returns no entity, so that a later write cannot replace the cell with
// a zero value.
type ValueError struct {
	// Table and Column name where the value belongs.
	Table, Column string
	// Type is the column's CQL type, for example "timestamp".
	Type string
	// Value renders the value, or "<redacted>" for a Sensitive column.
	Value string
	// Reason says what is wrong and what is valid.
	Reason string
	// Read is true when the value is a stored cell being read.
	Read bool
}

// Error renders "kandra: value out of range: table.column (type): value:
// reason".
func (e *ValueError) Error() string {
	where := e.Column
	if e.Table != "" {
		where = e.Table + "." + e.Column
	}
	dir := ""
	if e.Read {
		dir = "reading "
	}
	return "kandra: value out of range: " + dir + where + " (" + e.Type + "): " + e.Value + ": " + e.Reason
}

// Is matches ErrValue and ErrKandra.
func (e *ValueError) Is(target error) bool { return isKind(target, ErrValue) }
