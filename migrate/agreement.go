package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	kerrors "github.com/kandra-go/kandra/errors"
)

// AgreementError reports that the nodes did not agree on one schema
// version in time after a schema statement. The statement itself was
// accepted by its coordinator; the cluster has not converged yet.
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

// Is matches errors.ErrMigration and errors.ErrKandra.
func (e *AgreementError) Is(target error) bool {
	return target == kerrors.ErrMigration || target == kerrors.ErrKandra
}

// Unwrap returns the cause.
func (e *AgreementError) Unwrap() error { return e.Cause }
