package kstore

import "github.com/kandra-go/kandra"

// Operation names the runtime passes to kandra.Metrics.Record, after every
// statement: kandra's documented list (kandra.OpSave ...), the ones this
// runtime emits.
const (
	// OpSave is kandra.OpSave: Save, and the lookup rows it writes.
	OpSave = kandra.OpSave
	// OpUpdate is kandra.OpUpdate: Update, and its lookup rows.
	OpUpdate = kandra.OpUpdate
	// OpDelete is kandra.OpDelete: a hard delete, its lookup reads and deletes.
	OpDelete = kandra.OpDelete
	// OpSaveAll is kandra.OpSaveAll: the batch of a SaveAll.
	OpSaveAll = kandra.OpSaveAll
	// OpDeleteAll is kandra.OpDeleteAll: the batch of a DeleteAll.
	OpDeleteAll = kandra.OpDeleteAll
	// OpSaveIfNotExists is kandra.OpSaveIfNotExists: the LWT insert.
	OpSaveIfNotExists = kandra.OpSaveIfNotExists
	// OpSoftDelete is kandra.OpSoftDelete: the soft-delete rewrite.
	OpSoftDelete = kandra.OpSoftDelete
	// OpGet is kandra.OpGet: a read by the full primary key.
	OpGet = kandra.OpGet
	// OpFind is kandra.OpFind: a read through a lookup table.
	OpFind = kandra.OpFind
	// OpList is kandra.OpList: one page of a partition.
	OpList = kandra.OpList
	// OpIncrement is kandra.OpIncrement: a counter update.
	OpIncrement = kandra.OpIncrement
	// OpEventualWriteFailed is kandra.OpEventualWriteFailed: a failed
	// asynchronous lookup write.
	OpEventualWriteFailed = kandra.OpEventualWriteFailed
	// OpBackfill is kandra.OpBackfill: a backfill's scans and writes.
	OpBackfill = kandra.OpBackfill
)
