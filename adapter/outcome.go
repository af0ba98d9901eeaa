package adapter

import (
	"errors"
	"fmt"

	"github.com/kandra-go/kandra/internal/cqlvalue"
	"github.com/kandra-go/kandra/kerrors"
)

// Unknown outcomes: the part of the runtime's driver contract for the
// statements that must not be sent twice (Statement.IsIdempotent false).
// An adapter sends such a statement once (no retry by its driver), and
// when its error may have come after the server applied it, returns
// UnknownOutcome of that error, which matches kerrors.ErrUnknownOutcome.
// The driver-neutral parts are here; which of its errors come before
// sending (a host it could not reach, a value it could not marshal) is
// the adapter's to say.

// UnknownOutcome wraps err, the error of a statement or batch that is not
// idempotent and may have applied, so that it matches
// kerrors.ErrUnknownOutcome and still unwraps to err. For adapter authors.
func UnknownOutcome(err error) error {
	return fmt.Errorf("%w: %w", kerrors.ErrUnknownOutcome, err)
}

// MayHaveApplied reports whether a server's error of code (the native
// protocol's error codes, RequestError.Code in both gocql drivers), the
// answer to a write, leaves open whether the write applied: a server
// error (0x0000), unavailable (0x1000: a lightweight transaction's commit
// phase may find too few replicas after its proposal was accepted, and
// the next Paxos round completes it), a write timeout (0x1100: for a
// lightweight transaction of type CAS when its Paxos round timed out,
// SIMPLE when its commit did; COUNTER for a counter update), a write
// failure (0x1500) and an unfinished lightweight transaction
// (CAS_WRITE_UNKNOWN, 0x1700, protocol v5). The other errors refuse the
// statement before it is applied (overloaded, invalid, unprepared ...) or
// answer a read: a lightweight transaction's read timeout comes before
// its proposal. Unavailable is on the safe side for a counter update too:
// its caller learns it may have applied. For adapter authors.
func MayHaveApplied(code int) bool {
	switch code {
	case 0x0000, 0x1000, 0x1100, 0x1500, 0x1700:
		return true
	}
	return false
}

// NotSent reports whether err, the error of a statement, is one the core
// knows came before anything was sent: an error of kandra's family (a
// value refused, an argument), a value the core's encoding refused while
// the driver marshalled it (both gocql drivers marshal every value before
// they write the request), or a user-defined type the server's type
// lacks a field of (kerrors.UDTFieldError). An adapter adds its driver's own such
// errors, and does not call its driver with a context already done. For
// adapter authors.
func NotSent(err error) bool {
	var fe *kerrors.UDTFieldError
	var vp *cqlvalue.Problem // a value the core's encoding refused: the driver sent nothing
	return errors.Is(err, kerrors.ErrKandra) || errors.As(err, &fe) || errors.As(err, &vp)
}
