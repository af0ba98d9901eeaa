package migrate

import (
	"strconv"

	"github.com/kandra-go/kandra"
)

// Class is how a step may be applied: at once, only when approved, or not
// in place at all.
type Class uint8

// The classes of step.
const (
	// Safe steps are applied without asking: they only create or add.
	Safe Class = iota
	// NeedsApproval steps change what exists or take long (a backfill,
	// table options); Apply runs them only when ApplyOptions.Approve
	// names them.
	NeedsApproval
	// Impossible steps cannot be done in place by any statement the
	// servers accept; Step.Manual says what to do instead.
	Impossible
)

// String returns "safe", "needs approval" or "impossible", and Class(n)
// for a value that is none of the constants.
func (c Class) String() string {
	switch c {
	case Safe:
		return "safe"
	case NeedsApproval:
		return "needs approval"
	case Impossible:
		return "impossible"
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// StepKind is what a step does.
type StepKind uint8

// The kinds of step. The migrator does StepCreateKeyspace to StepBackfillLookup,
// StepCreateType, StepAddField and StepChangeMask; the others are differences
// no statement can fix in place (class Impossible).
const (
	// StepCreateKeyspace creates the keyspace (CREATE KEYSPACE IF NOT EXISTS).
	StepCreateKeyspace StepKind = iota
	// StepCreateTable creates a primary table.
	StepCreateTable
	// StepCreateLookupTable creates a lookup table.
	StepCreateLookupTable
	// StepCreateIndex creates a secondary index.
	StepCreateIndex
	// StepAddColumn adds a regular column to an existing table (ALTER TABLE
	// ... ADD).
	StepAddColumn
	// StepAlterOptions changes table options (ALTER TABLE ... WITH).
	StepAlterOptions
	// StepBackfillLookup fills a new lookup table from its existing primary
	// table. (Not "Backfill": that is the function that does it.)
	StepBackfillLookup
	// StepChangeType is a column whose live type is not the model's.
	StepChangeType
	// StepChangeKey is a partition key or clustering column set, order or
	// type that differs.
	StepChangeKey
	// StepChangeClusteringOrder is a clustering column sorted the other way.
	StepChangeClusteringOrder
	// StepChangeCounterKind is a counter table that should be a plain one, or
	// the reverse.
	StepChangeCounterKind
	// StepReAddDropped is a column the server dropped once, which the
	// keyspace's targets refuse to add back with the model's type.
	StepReAddDropped
	// StepChangeReplication is an existing keyspace whose replication is not
	// the model's.
	StepChangeReplication
	// StepChangeIndex is a live index, of the name kandra gives the model's
	// index, on another column.
	StepChangeIndex
	// StepChangeColumnKind is a model column that is a static (or another
	// kind of) column in live.
	StepChangeColumnKind
	// StepCreateType creates a user-defined type (CREATE TYPE IF NOT EXISTS).
	StepCreateType
	// StepAddField adds a field to an existing user-defined type (ALTER TYPE
	// ... ADD).
	StepAddField
	// StepChangeFieldType is a field of a user-defined type whose live type is
	// not the model's: servers alter no field's type.
	StepChangeFieldType
	// StepChangeKeyType is a field the model adds to a user-defined type that
	// the partition key of a live table holds (directly or inside another
	// type or a collection): servers refuse to add a field to it.
	StepChangeKeyType
	// StepChangeLookupKind is a lookup table of a UNIQUE lookup in live and
	// a non-unique one (BATCH, EVENTUAL) in the model, or the reverse: the
	// kind is part of the table's key.
	StepChangeLookupKind
	// StepChangeMask gives an existing column the model's mask (Cassandra
	// 5.0's dynamic data masking): ALTER TABLE ... ALTER c MASKED WITH
	// fn(...) for a column live masks otherwise or not at all, or ALTER c
	// DROP MASKED for one the model does not mask. Safe: it changes what
	// roles without the UNMASK permission read, never the data.
	StepChangeMask
	// StepLegacyTable is a live table of a legacy form (COMPACT STORAGE,
	// LiveTable.Legacy) that the model has as a CQL table: the migrator
	// plans nothing against it.
	StepLegacyTable
)

var stepKindNames = [...]string{
	StepCreateKeyspace:        "create-keyspace",
	StepCreateTable:           "create-table",
	StepCreateLookupTable:     "create-lookup-table",
	StepCreateIndex:           "create-index",
	StepAddColumn:             "add-column",
	StepAlterOptions:          "options",
	StepBackfillLookup:        "backfill",
	StepChangeType:            "change-type",
	StepChangeKey:             "change-key",
	StepChangeClusteringOrder: "change-clustering-order",
	StepChangeCounterKind:     "change-counter-kind",
	StepReAddDropped:          "re-add-dropped",
	StepChangeReplication:     "change-replication",
	StepChangeIndex:           "change-index",
	StepChangeColumnKind:      "change-column-kind",
	StepCreateType:            "create-type",
	StepAddField:              "add-field",
	StepChangeFieldType:       "change-field-type",
	StepChangeKeyType:         "change-key-type",
	StepChangeLookupKind:      "change-lookup-kind",
	StepChangeMask:            "change-mask",
	StepLegacyTable:           "legacy-table",
}

// String returns the kind as it starts a step ID ("create-table",
// "add-column", "options", ...), and StepKind(n) for a value that is none
// of the constants.
func (k StepKind) String() string {
	if int(k) < len(stepKindNames) {
		return stepKindNames[k]
	}
	return "StepKind(" + strconv.Itoa(int(k)) + ")"
}

// Step is one difference between the model and the live keyspace, and
// what to do about it.
type Step struct {
	// ID is stable and readable: the kind, a colon and the object,
	// "create-table:users", "add-column:users.nickname",
	// "backfill:users_by_email", "options:users", "create-type:address",
	// "add-field:address.zip". ApplyOptions.Approve matches IDs.
	ID    string
	Class Class
	Kind  StepKind
	// Table is the table's name as stored ("" for keyspace and type
	// steps).
	Table string
	// Column is the column's name as stored ("" unless a column step).
	Column string
	// UDT is the user-defined type's name as stored ("" unless a type
	// step: StepCreateType, StepAddField, StepChangeFieldType, StepChangeKeyType).
	UDT string
	// Field is the name of the type's field ("" unless a field step).
	Field string
	// CQL is the statement ("" for Backfill and Impossible steps).
	CQL string
	// Reason says why the step is there, in one sentence.
	Reason string
	// Manual is, for an Impossible step, the way to make the change by
	// hand.
	Manual string
	// Lookup is the lookup table a Backfill step fills.
	Lookup *kandra.LookupTableSchema
}

func stepID(k StepKind, object string) string { return k.String() + ":" + object }
