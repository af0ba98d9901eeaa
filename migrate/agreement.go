package migrate

import "github.com/kandra-go/kandra/adapter"

// AgreementError reports that the nodes did not agree on one schema
// version in time after a schema statement (Driver's ExecSchema and
// AwaitSchemaAgreement return it, and Apply wraps it). The statement
// itself was accepted by its coordinator; the cluster has not converged
// yet. Its fields: Statement, the schema statement waited for, if any;
// Versions, the schema versions last seen, by host; Waited, how long the
// adapter waited; Cause, the driver's error, if any. It matches
// errors.ErrMigration and errors.ErrKandra.
//
//	var ae *migrate.AgreementError
//	if errors.As(err, &ae) { ... ae.Versions ... }
//
// It is the type package adapter builds for adapters
// (adapter.AwaitAgreement), under the name an app uses.
type AgreementError = adapter.AgreementError
