package adapter

import (
	"context"
	"errors"
)

// The send loop every adapter runs around its driver's call, written once:
// a context already done sends nothing; a value of a user-defined type the
// driver could not marshal because it prepared the statement before the
// type gained a field is sent once more under a renewed text; an error
// after which a statement that is not idempotent may have applied becomes
// an unknown outcome.

// Sent is what one attempt of a call sent: its statements and the text of
// each (Texts.CQL), in pairs, for Texts.Renew. A batch's are in the two
// slices; SentOne keeps its one statement apart (Send reads both).
type Sent struct {
	Statements []*Statement
	Texts      []string
	// one and oneText are SentOne's: every call of a single statement
	// returns a Sent, which two slices of one made two allocations of
	// (read only when the attempt failed).
	one     *Statement
	oneText string
}

// SentOne is the Sent of one statement sent as text.
func SentOne(s *Statement, text string) Sent {
	return Sent{one: s, oneText: text}
}

// renew has texts renew every statement sent.
func (s *Sent) renew(texts *Texts) {
	if s.one != nil {
		texts.Renew(s.one, s.oneText)
	}
	for i, st := range s.Statements {
		texts.Renew(st, s.Texts[i])
	}
}

// Send runs attempt, the driver's call of a statement or batch, as a
// Driver's Exec, Query and Batch must: nothing when ctx is done; once
// more, after texts renews what it sent, when its error is a field a
// user-defined type has gained on the server since the driver prepared
// the statement (UDTFieldAdded, asked through d); and, for a call that is
// not idempotent, with an error that may have come after the server
// applied it (open reports it; see OutcomeOpen) wrapped by
// UnknownOutcome. For adapter authors.
func Send[R any](ctx context.Context, d Driver, texts *Texts, idempotent bool, open func(error) bool, attempt func() (R, Sent, error)) (R, error) {
	if err := ctx.Err(); err != nil {
		var zero R
		return zero, err // nothing sent
	}
	for try := 0; ; try++ {
		r, sent, err := attempt()
		if try == 0 && err != nil && UDTFieldAdded(ctx, d, err) {
			sent.renew(texts)
			continue
		}
		if err != nil && !idempotent && open(err) {
			err = UnknownOutcome(err)
		}
		return r, err
	}
}

// OutcomeOpen reports whether err, the error of a statement a driver ran,
// may have come after the server applied it, for a driver of the gocql
// family: RE is its server error type (gocql.RequestError, with the
// native protocol's code), ME its marshalling error type, and notSent its
// errors that come before anything is sent (no connection, session
// closed...). Open are: a server's error whose code leaves it open
// (MayHaveApplied), an error that says it was potentially executed
// (ScyllaDB's fork of gocql), and anything neither known to come before
// sending (NotSent, ME, notSent) nor answered by the server, which is the
// safe side: the caller reads before writing again. An answer lost (a
// client timeout, a connection closed, the context done while waiting) is
// open. For adapter authors.
func OutcomeOpen[RE interface{ Code() int }, ME error](err error, notSent ...error) bool {
	var re RE
	if errors.As(err, &re) {
		return MayHaveApplied(re.Code())
	}
	var me ME
	var pe interface{ PotentiallyExecuted() bool }
	switch {
	case NotSent(err), errors.As(err, &me):
		return false
	case errors.As(err, &pe):
		return pe.PotentiallyExecuted()
	}
	for _, before := range notSent {
		if errors.Is(err, before) {
			return false
		}
	}
	return true
}

// IsIdempotent reports a batch of idempotent statements: one that may be
// retried.
func (b *Batch) IsIdempotent() bool {
	for _, e := range b.Entries {
		if !e.Statement.IsIdempotent() {
			return false
		}
	}
	return true
}
