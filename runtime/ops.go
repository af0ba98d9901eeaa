package runtime

import "github.com/kandra-go/kandra"

// Operation names the runtime passes to kandra.Metrics.Record, after every
// statement. The write names are kandra's (kandra.OpSave, OpUpdate,
// OpDelete); the rest are added here.
const (
	// OpSave is kandra.OpSave: Save, and the lookup rows it writes.
	OpSave = kandra.OpSave
	// OpUpdate is kandra.OpUpdate: Update, and its lookup rows.
	OpUpdate = kandra.OpUpdate
	// OpDelete is kandra.OpDelete: a hard delete, its lookup reads and deletes.
	OpDelete = kandra.OpDelete
	// OpSaveIfNotExists is the lightweight-transaction insert.
	OpSaveIfNotExists = "saveIfNotExists"
	// OpSoftDelete is the soft-delete rewrite.
	OpSoftDelete = "softDelete"
	// OpGet is a read of one row by its full primary key.
	OpGet = "get"
	// OpFind is a read through a lookup table: the lookup row (recorded
	// with the lookup table's name), then the primary row (with the
	// primary table's name).
	OpFind = "find"
	// OpList is a read of one page of a partition.
	OpList = "list"
	// OpIncrement is a counter update (Increment and Decrement).
	OpIncrement = "increment"
	// OpEventualWriteFailed is recorded, with the lookup table's name and
	// the failed statement's duration, when an asynchronous lookup write
	// fails (the listener's OnEventualWriteFailed is called too).
	OpEventualWriteFailed = "eventualWriteFailed"
)
