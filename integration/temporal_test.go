package integration

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/uuid"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/migrate"
)

// The Temporal source this test ports: github.com/temporalio/temporal at
// this commit (its newest snapshot when the test was written, 2026-08-21,
// after v1.29.0). The executions table is in schema/cassandra/temporal/
// schema.cql; the batches on it are built in common/persistence/cassandra/
// (mutable_state_store.go, util.go, mutable_state_task_store.go,
// shard_store.go; the row constants in execution_store.go, the reading of
// a batch that did not apply in errors.go).
const temporalCommit = "6805caea59e35d0611ed96be69641b8d86bff11c"

// Temporal's schema of the executions table, verbatim from
// schema/cassandra/temporal/schema.cql at temporalCommit (the type its
// buffered_events_list holds, then the table), run statement by statement
// on a session bound to the keyspace, as its schema tool runs the file.
const (
	tcqlSerializedEventBatchType = `CREATE TYPE serialized_event_batch (
  encoding_type text,
  version       int,
  data          blob
);`
	tcqlExecutionsTable = `CREATE TABLE executions (
  shard_id                       int,
  type                           int, -- enum RowType { Shard, Execution, TransferTask, TimerTask, ReplicationTask, VisibilityTask}
  namespace_id                   uuid,
  workflow_id                    text,
  run_id                         uuid,
  current_run_id                 uuid,
  visibility_ts                  timestamp, -- unique identifier for timer tasks for an execution
  task_id                        bigint, -- unique identifier for transfer and timer tasks for an execution
  shard                          blob,
  shard_encoding                 text,
  execution                      blob,
  execution_encoding             text,
  execution_state                blob,
  execution_state_encoding       text,
  transfer                       blob,
  transfer_encoding              text,
  replication                    blob,
  replication_encoding           text,
  timer                          blob,
  timer_encoding                 text,
  visibility_task_data           blob,
  visibility_task_encoding       text,
  task_data                      blob,
  task_encoding                  text,
  next_event_id                  bigint,  -- This is needed to make conditional updates on session history
  range_id                       bigint,  -- Increasing sequence identifier for transfer queue, checkpointed into shard info
  activity_map                   map<bigint, blob>,
  activity_map_encoding          text,
  timer_map                      map<text, blob>,
  timer_map_encoding             text,
  child_executions_map           map<bigint, blob>,
  child_executions_map_encoding  text,
  request_cancel_map             map<bigint, blob>,
  request_cancel_map_encoding    text,
  signal_map                     map<bigint, blob>,
  signal_map_encoding            text,
  signal_requested               set<uuid>,
  chasm_node_map                 map<text, blob>, -- Map from path to CHASM node blob
  chasm_node_map_encoding        text,
  buffered_events_list           list<frozen<serialized_event_batch>>,
  workflow_last_write_version    bigint,
  workflow_state                 int,
  checksum                       blob,
  checksum_encoding              text,
  db_record_version              bigint,
  PRIMARY KEY  (shard_id, type, namespace_id, workflow_id, run_id, visibility_ts, task_id)
) WITH COMPACTION = {
    'class': 'org.apache.cassandra.db.compaction.LeveledCompactionStrategy'
  };`
)

// Temporal's write statements, verbatim (the Go concatenations as they
// stand in the source at temporalCommit).
const (
	// common/persistence/cassandra/shard_store.go
	tcqlCreateShardQuery = `INSERT INTO executions (` +
		`shard_id, type, namespace_id, workflow_id, run_id, visibility_ts, task_id, shard, shard_encoding, range_id)` +
		`VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS`
	// common/persistence/cassandra/shard_store.go
	tcqlUpdateShardQuery = `UPDATE executions ` +
		`SET shard = ?, shard_encoding = ?, range_id = ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? ` +
		`IF range_id = ?`
	// common/persistence/cassandra/mutable_state_store.go: the shard's fence
	tcqlUpdateLeaseQuery = `UPDATE executions ` +
		`SET range_id = ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? ` +
		`IF range_id = ?`
	// common/persistence/cassandra/mutable_state_store.go
	tcqlUpdateCurrentWorkflowExecutionQuery = `UPDATE executions USING TTL 0 ` +
		`SET current_run_id = ?, execution_state = ?, execution_state_encoding = ?, workflow_last_write_version = ?, workflow_state = ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? ` +
		`IF current_run_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlUpdateCurrentWorkflowExecutionForNewQuery = tcqlUpdateCurrentWorkflowExecutionQuery +
		`and workflow_last_write_version = ? ` +
		`and workflow_state = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlCreateCurrentWorkflowExecutionQuery = `INSERT INTO executions (` +
		`shard_id, type, namespace_id, workflow_id, run_id, ` +
		`visibility_ts, task_id, current_run_id, execution_state, execution_state_encoding, ` +
		`workflow_last_write_version, workflow_state) ` +
		`VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS USING TTL 0 `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlCreateWorkflowExecutionQuery = `INSERT INTO executions (` +
		`shard_id, namespace_id, workflow_id, run_id, type, ` +
		`execution, execution_encoding, execution_state, execution_state_encoding, next_event_id, db_record_version, ` +
		`visibility_ts, task_id, checksum, checksum_encoding) ` +
		`VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlUpdateWorkflowExecutionQuery = `UPDATE executions ` +
		`SET execution = ? ` +
		`, execution_encoding = ? ` +
		`, execution_state = ? ` +
		`, execution_state_encoding = ? ` +
		`, next_event_id = ? ` +
		`, db_record_version = ? ` +
		`, checksum = ? ` +
		`, checksum_encoding = ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? ` +
		`IF db_record_version = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlUpdateActivityInfoQuery = `UPDATE executions ` +
		`SET activity_map[ ? ] = ?, activity_map_encoding = ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlResetActivityInfoQuery = `UPDATE executions ` +
		`SET activity_map = ?, activity_map_encoding = ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlUpdateTimerInfoQuery = `UPDATE executions ` +
		`SET timer_map[ ? ] = ?, timer_map_encoding = ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlResetTimerInfoQuery = `UPDATE executions ` +
		`SET timer_map = ?, timer_map_encoding = ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlResetChildExecutionInfoQuery = `UPDATE executions ` +
		`SET child_executions_map = ?, child_executions_map_encoding = ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlResetRequestCancelInfoQuery = `UPDATE executions ` +
		`SET request_cancel_map = ?, request_cancel_map_encoding = ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlResetChasmNodeQuery = `UPDATE executions ` +
		`SET chasm_node_map = ?, chasm_node_map_encoding = ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlResetSignalInfoQuery = `UPDATE executions ` +
		`SET signal_map = ?, signal_map_encoding = ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlUpdateSignalRequestedQuery = `UPDATE executions ` +
		`SET signal_requested = signal_requested + ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go (no space before
	// WHERE in the source: the server splits "?WHERE" all the same)
	tcqlResetSignalRequestedQuery = `UPDATE executions ` +
		`SET signal_requested = ?` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlAppendBufferedEventsQuery = `UPDATE executions ` +
		`SET buffered_events_list = buffered_events_list + ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlDeleteBufferedEventsQuery = `UPDATE executions ` +
		`SET buffered_events_list = [] ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlDeleteActivityInfoQuery = `DELETE activity_map[ ? ] ` +
		`FROM executions ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlDeleteTimerInfoQuery = `DELETE timer_map[ ? ] ` +
		`FROM executions ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlDeleteWorkflowExecutionMutableStateQuery = `DELETE FROM executions ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlDeleteWorkflowExecutionSignalRequestedQuery = `UPDATE executions ` +
		`SET signal_requested = signal_requested - ? ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ? `
	// common/persistence/cassandra/mutable_state_store.go
	tcqlDeleteWorkflowExecutionCurrentRowQuery = tcqlDeleteWorkflowExecutionMutableStateQuery + " if current_run_id = ? "
	// common/persistence/cassandra/mutable_state_task_store.go
	tcqlCreateTransferTaskQuery = `INSERT INTO executions (` +
		`shard_id, type, namespace_id, workflow_id, run_id, transfer, transfer_encoding, visibility_ts, task_id) ` +
		`VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// common/persistence/cassandra/mutable_state_task_store.go
	tcqlCreateVisibilityTaskQuery = `INSERT INTO executions (` +
		`shard_id, type, namespace_id, workflow_id, run_id, visibility_task_data, visibility_task_encoding, visibility_ts, task_id) ` +
		`VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// common/persistence/cassandra/mutable_state_task_store.go
	tcqlCreateTimerTaskQuery = `INSERT INTO executions (` +
		`shard_id, type, namespace_id, workflow_id, run_id, timer, timer_encoding, visibility_ts, task_id) ` +
		`VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

// Temporal's reads of the rows those statements write, verbatim: the test
// runs them on both partitions after every case.
const (
	// common/persistence/cassandra/shard_store.go
	tcqlGetShardQuery = `SELECT shard, shard_encoding ` +
		`FROM executions ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ?`
	// common/persistence/cassandra/mutable_state_store.go
	tcqlGetWorkflowExecutionQuery = `SELECT execution, execution_encoding, execution_state, execution_state_encoding, next_event_id, activity_map, activity_map_encoding, timer_map, timer_map_encoding, ` +
		`child_executions_map, child_executions_map_encoding, request_cancel_map, request_cancel_map_encoding, signal_map, signal_map_encoding, signal_requested, buffered_events_list, ` +
		`chasm_node_map, chasm_node_map_encoding, ` +
		`checksum, checksum_encoding, db_record_version ` +
		`FROM executions ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ?`
	// common/persistence/cassandra/mutable_state_store.go
	tcqlGetCurrentExecutionQuery = `SELECT current_run_id, execution, execution_encoding, execution_state, execution_state_encoding, workflow_last_write_version ` +
		`FROM executions ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id = ?`
	// common/persistence/cassandra/mutable_state_task_store.go
	tcqlGetTransferTasksQuery = `SELECT task_id, transfer, transfer_encoding ` +
		`FROM executions ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id >= ? ` +
		`and task_id < ?`
	// common/persistence/cassandra/mutable_state_task_store.go
	tcqlGetVisibilityTasksQuery = `SELECT task_id, visibility_task_data, visibility_task_encoding ` +
		`FROM executions ` +
		`WHERE shard_id = ? ` +
		`and type = ? ` +
		`and namespace_id = ? ` +
		`and workflow_id = ? ` +
		`and run_id = ? ` +
		`and visibility_ts = ? ` +
		`and task_id >= ? ` +
		`and task_id < ?`
	// common/persistence/cassandra/mutable_state_task_store.go
	tcqlGetTimerTasksQuery = `SELECT visibility_ts, task_id, timer, timer_encoding ` +
		`FROM executions ` +
		`WHERE shard_id = ? ` +
		`and type = ?` +
		`and namespace_id = ? ` +
		`and workflow_id = ?` +
		`and run_id = ?` +
		`and visibility_ts >= ? ` +
		`and visibility_ts < ?`
)

// The keys of the kinds of rows the executions table holds, from
// common/persistence/cassandra/execution_store.go at temporalCommit: each
// kind has its type and fixed namespace, workflow and run ids (but for the
// execution rows), and the shard and execution rows fixed task ids.
const (
	tPermanentRunID                = "30000000-0000-f000-f000-000000000001"
	tRowTypeShardNamespaceID       = "10000000-1000-f000-f000-000000000000"
	tRowTypeShardWorkflowID        = "20000000-1000-f000-f000-000000000000"
	tRowTypeShardRunID             = "30000000-1000-f000-f000-000000000000"
	tRowTypeTransferNamespaceID    = "10000000-3000-f000-f000-000000000000"
	tRowTypeTransferWorkflowID     = "20000000-3000-f000-f000-000000000000"
	tRowTypeTransferRunID          = "30000000-3000-f000-f000-000000000000"
	tRowTypeTimerNamespaceID       = "10000000-4000-f000-f000-000000000000"
	tRowTypeTimerWorkflowID        = "20000000-4000-f000-f000-000000000000"
	tRowTypeTimerRunID             = "30000000-4000-f000-f000-000000000000"
	tRowTypeVisibilityNamespaceID  = "10000000-6000-f000-f000-000000000000"
	tRowTypeVisibilityWorkflowID   = "20000000-6000-f000-f000-000000000000"
	tRowTypeVisibilityRunID        = "30000000-6000-f000-f000-000000000000"
	tRowTypeExecutionTaskID        = int64(-10)
	tRowTypeShardTaskID            = int64(-11)
	tRowTypeShard                  = 0
	tRowTypeExecution              = 1
	tRowTypeTransferTask           = 2
	tRowTypeTimerTask              = 3
	tRowTypeVisibilityTask         = 6
	tWorkflowExecutionStateRunning = 2             // enumsspb.WORKFLOW_EXECUTION_STATE_RUNNING
	tWorkflowExecutionStateDone    = 3             // enumsspb.WORKFLOW_EXECUTION_STATE_COMPLETED
	tEncodingProto3                = "Proto3"      // enumspb.ENCODING_TYPE_PROTO3.String()
	tEncodingUnspecified           = "Unspecified" // the zero EncodingType's String(): a reset of an empty map binds it
)

// tDefaultDateTime is execution_store.go's defaultDateTime: the
// visibility_ts of every row but the timer tasks'; Temporal binds it as
// milliseconds (p.UnixMilliseconds).
var tDefaultDateTime = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// tDefaultVisibilityTimestamp is defaultDateTime in milliseconds, as
// Temporal binds it.
var tDefaultVisibilityTimestamp = tDefaultDateTime.UnixMilli()

// ---------------------------------------------------------------------------
// kandra's side: one entity for the executions table, every kind of row
// in one struct (its shard, current-execution, execution and task rows
// share one partition per shard). Every column the table has is declared,
// so that the migrator finds nothing to change; the regular columns are
// nullable (pointers, nil slices and maps), since each kind of row sets a
// few of them, and the table leaves null columns unset (kandra.OmitNulls)
// as Temporal's INSERTs of their own columns do.

// temporalEventBatch is the serialized_event_batch type.
type temporalEventBatch struct {
	EncodingType string
	Version      int32
	Data         []byte
}

// UDTName names the type as Temporal's schema does.
func (temporalEventBatch) UDTName() string { return "serialized_event_batch" }

// temporalExecution is a row of Temporal's executions table.
type temporalExecution struct {
	ShardID                    int32
	Type                       int32
	NamespaceID                uuid.UUID
	WorkflowID                 string
	RunID                      uuid.UUID
	VisibilityTS               time.Time `kandra:"visibility_ts"`
	TaskID                     int64
	CurrentRunID               *uuid.UUID
	Shard                      []byte
	ShardEncoding              *string
	Execution                  []byte
	ExecutionEncoding          *string
	ExecutionState             []byte
	ExecutionStateEncoding     *string
	Transfer                   []byte
	TransferEncoding           *string
	Replication                []byte
	ReplicationEncoding        *string
	Timer                      []byte
	TimerEncoding              *string
	VisibilityTaskData         []byte
	VisibilityTaskEncoding     *string
	TaskData                   []byte
	TaskEncoding               *string
	NextEventID                *int64
	RangeID                    *int64
	ActivityMap                map[int64][]byte
	ActivityMapEncoding        *string
	TimerMap                   map[string][]byte
	TimerMapEncoding           *string
	ChildExecutionsMap         map[int64][]byte
	ChildExecutionsMapEncoding *string
	RequestCancelMap           map[int64][]byte
	RequestCancelMapEncoding   *string
	SignalMap                  map[int64][]byte
	SignalMapEncoding          *string
	SignalRequested            map[uuid.UUID]struct{}
	ChasmNodeMap               map[string][]byte
	ChasmNodeMapEncoding       *string
	BufferedEventsList         []temporalEventBatch
	WorkflowLastWriteVersion   *int64
	WorkflowState              *int32
	Checksum                   []byte
	ChecksumEncoding           *string
	DBRecordVersion            *int64 `kandra:"db_record_version"`
}

// Describe declares the table as schema.cql creates it.
func (e *temporalExecution) Describe(s *kandra.Schema[temporalExecution]) {
	s.Table("executions", kandra.Compaction(kandra.Leveled(0)), kandra.OmitNulls())
	kandra.Bind(s, &e.ShardID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Type, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &e.NamespaceID, kandra.ClusteringKey(1, kandra.ClusteringAsc))
	kandra.Bind(s, &e.WorkflowID, kandra.ClusteringKey(2, kandra.ClusteringAsc))
	kandra.Bind(s, &e.RunID, kandra.ClusteringKey(3, kandra.ClusteringAsc))
	kandra.Bind(s, &e.VisibilityTS, kandra.ClusteringKey(4, kandra.ClusteringAsc))
	kandra.Bind(s, &e.TaskID, kandra.ClusteringKey(5, kandra.ClusteringAsc))
}

// temporalFields are the field handles the typed steps change and test.
type temporalFields struct {
	rangeID, nextEventID, dbRecordVersion, lastWriteVersion kandra.Field[temporalExecution, *int64]
	state                                                   kandra.Field[temporalExecution, *int32]
	currentRunID                                            kandra.Field[temporalExecution, *uuid.UUID]
	shard, execution, executionState, checksum              kandra.Field[temporalExecution, []byte]
	shardEnc, executionEnc, executionStateEnc, checksumEnc  kandra.Field[temporalExecution, *string]
	activityEnc, timerEnc, childEnc, cancelEnc, signalEnc   kandra.Field[temporalExecution, *string]
	chasmEnc                                                kandra.Field[temporalExecution, *string]
	activities, children, cancels, signals                  kandra.Field[temporalExecution, map[int64][]byte]
	timers, chasmNodes                                      kandra.Field[temporalExecution, map[string][]byte]
	signalRequested                                         kandra.Field[temporalExecution, map[uuid.UUID]struct{}]
	buffered                                                kandra.Field[temporalExecution, []temporalEventBatch]
}

// newTemporalFields makes the handles of tb's fields.
func newTemporalFields(tb *kandra.Table[temporalExecution]) temporalFields {
	type E = temporalExecution
	return temporalFields{
		rangeID:           kandra.MustFieldOf(tb, func(e *E) **int64 { return &e.RangeID }),
		nextEventID:       kandra.MustFieldOf(tb, func(e *E) **int64 { return &e.NextEventID }),
		dbRecordVersion:   kandra.MustFieldOf(tb, func(e *E) **int64 { return &e.DBRecordVersion }),
		lastWriteVersion:  kandra.MustFieldOf(tb, func(e *E) **int64 { return &e.WorkflowLastWriteVersion }),
		state:             kandra.MustFieldOf(tb, func(e *E) **int32 { return &e.WorkflowState }),
		currentRunID:      kandra.MustFieldOf(tb, func(e *E) **uuid.UUID { return &e.CurrentRunID }),
		shard:             kandra.MustFieldOf(tb, func(e *E) *[]byte { return &e.Shard }),
		execution:         kandra.MustFieldOf(tb, func(e *E) *[]byte { return &e.Execution }),
		executionState:    kandra.MustFieldOf(tb, func(e *E) *[]byte { return &e.ExecutionState }),
		checksum:          kandra.MustFieldOf(tb, func(e *E) *[]byte { return &e.Checksum }),
		shardEnc:          kandra.MustFieldOf(tb, func(e *E) **string { return &e.ShardEncoding }),
		executionEnc:      kandra.MustFieldOf(tb, func(e *E) **string { return &e.ExecutionEncoding }),
		executionStateEnc: kandra.MustFieldOf(tb, func(e *E) **string { return &e.ExecutionStateEncoding }),
		checksumEnc:       kandra.MustFieldOf(tb, func(e *E) **string { return &e.ChecksumEncoding }),
		activityEnc:       kandra.MustFieldOf(tb, func(e *E) **string { return &e.ActivityMapEncoding }),
		timerEnc:          kandra.MustFieldOf(tb, func(e *E) **string { return &e.TimerMapEncoding }),
		childEnc:          kandra.MustFieldOf(tb, func(e *E) **string { return &e.ChildExecutionsMapEncoding }),
		cancelEnc:         kandra.MustFieldOf(tb, func(e *E) **string { return &e.RequestCancelMapEncoding }),
		signalEnc:         kandra.MustFieldOf(tb, func(e *E) **string { return &e.SignalMapEncoding }),
		chasmEnc:          kandra.MustFieldOf(tb, func(e *E) **string { return &e.ChasmNodeMapEncoding }),
		activities:        kandra.MustFieldOf(tb, func(e *E) *map[int64][]byte { return &e.ActivityMap }),
		children:          kandra.MustFieldOf(tb, func(e *E) *map[int64][]byte { return &e.ChildExecutionsMap }),
		cancels:           kandra.MustFieldOf(tb, func(e *E) *map[int64][]byte { return &e.RequestCancelMap }),
		signals:           kandra.MustFieldOf(tb, func(e *E) *map[int64][]byte { return &e.SignalMap }),
		timers:            kandra.MustFieldOf(tb, func(e *E) *map[string][]byte { return &e.TimerMap }),
		chasmNodes:        kandra.MustFieldOf(tb, func(e *E) *map[string][]byte { return &e.ChasmNodeMap }),
		signalRequested:   kandra.MustFieldOf(tb, func(e *E) *map[uuid.UUID]struct{} { return &e.SignalRequested }),
		buffered:          kandra.MustFieldOf(tb, func(e *E) *[]temporalEventBatch { return &e.BufferedEventsList }),
	}
}

// The keys of the rows, as Temporal binds them.

// temporalShardRow is the key of shard's shard row.
func temporalShardRow(shard int32) *temporalExecution {
	return &temporalExecution{ShardID: shard, Type: tRowTypeShard, NamespaceID: uuid.MustParse(tRowTypeShardNamespaceID),
		WorkflowID: tRowTypeShardWorkflowID, RunID: uuid.MustParse(tRowTypeShardRunID), VisibilityTS: tDefaultDateTime, TaskID: tRowTypeShardTaskID}
}

// temporalCurrentRow is the key of a workflow's current-execution row:
// an execution row whose run id is the permanent one.
func temporalCurrentRow(shard int32, namespaceID, workflowID string) *temporalExecution {
	return temporalExecutionRow(shard, namespaceID, workflowID, tPermanentRunID)
}

// temporalExecutionRow is the key of a run's execution row.
func temporalExecutionRow(shard int32, namespaceID, workflowID, runID string) *temporalExecution {
	return &temporalExecution{ShardID: shard, Type: tRowTypeExecution, NamespaceID: uuid.MustParse(namespaceID),
		WorkflowID: workflowID, RunID: uuid.MustParse(runID), VisibilityTS: tDefaultDateTime, TaskID: tRowTypeExecutionTaskID}
}

// temporalTaskRow is the row of a history task, its blob in its
// category's column.
func temporalTaskRow(shard int32, task temporalTask) *temporalExecution {
	e := &temporalExecution{ShardID: shard, Type: task.category, VisibilityTS: tDefaultDateTime, TaskID: task.id}
	enc := ptr(tEncodingProto3)
	switch task.category {
	case tRowTypeTransferTask:
		e.NamespaceID, e.WorkflowID, e.RunID = uuid.MustParse(tRowTypeTransferNamespaceID), tRowTypeTransferWorkflowID, uuid.MustParse(tRowTypeTransferRunID)
		e.Transfer, e.TransferEncoding = task.blob, enc
	case tRowTypeTimerTask:
		e.NamespaceID, e.WorkflowID, e.RunID = uuid.MustParse(tRowTypeTimerNamespaceID), tRowTypeTimerWorkflowID, uuid.MustParse(tRowTypeTimerRunID)
		e.Timer, e.TimerEncoding, e.VisibilityTS = task.blob, enc, task.fire
	case tRowTypeVisibilityTask:
		e.NamespaceID, e.WorkflowID, e.RunID = uuid.MustParse(tRowTypeVisibilityNamespaceID), tRowTypeVisibilityWorkflowID, uuid.MustParse(tRowTypeVisibilityRunID)
		e.VisibilityTaskData, e.VisibilityTaskEncoding = task.blob, enc
	}
	return e
}

// ---------------------------------------------------------------------------
// The requests: what Temporal's InternalCreateWorkflowExecutionRequest,
// InternalUpdateWorkflowExecutionRequest and InternalSetWorkflowExecution-
// Request carry that its statements bind, shared by both sides.

// temporalTask is a history task: its category (its row type), id, fire
// time (a timer task's) and blob.
type temporalTask struct {
	category int32
	id       int64
	fire     time.Time
	blob     []byte
}

// temporalWorkflow is a workflow snapshot or mutation.
type temporalWorkflow struct {
	namespaceID, workflowID, runID    string
	execInfo, execState, checksum     []byte
	state                             int32
	lastWriteVersion                  int64
	nextEventID                       int64
	dbRecordVersion                   int64
	activities                        map[int64][]byte
	deleteActivities                  []int64
	timers                            map[string][]byte
	deleteTimers                      []string
	children, requestCancels, signals map[int64][]byte // a reset's
	chasmNodes                        map[string][]byte
	signalRequested                   []string
	deleteSignalRequested             []string
	newBufferedEvents                 []byte
	tasks                             []temporalTask
}

// temporalCreate is a CreateWorkflowExecution request: brand new, or
// taking the current row over from a completed run.
type temporalCreate struct {
	rangeID                  int64
	updateCurrent            bool
	previousRunID            string
	previousLastWriteVersion int64
	wf                       temporalWorkflow
}

// ---------------------------------------------------------------------------
// Temporal's side: its persistence code's batches, ported call for call
// (the same statements, in the same order, with the same values bound)
// onto a gocql session bound to the keyspace, as Temporal's is. The only
// change: Go maps are walked in key order, so that both sides send the
// same statements in the same order (the server's result does not depend
// on it).

// temporalApp runs Temporal's statements.
type temporalApp struct {
	s *gocql.Session
}

// execBatch is MapExecuteBatchCAS as Temporal calls it, with the rows the
// server returns when the batch does not apply read as its convertErrors
// reads them: the first into the map, the next ones through the iterator.
func (a *temporalApp) execBatch(b *gocql.Batch) (bool, []map[string]any, error) {
	first := temporalNewConflictRecord()
	applied, iter, err := a.s.MapExecuteBatchCAS(b, first)
	if err != nil {
		return false, nil, err
	}
	if applied {
		return true, nil, iter.Close()
	}
	recs := []map[string]any{first}
	for {
		rec := temporalNewConflictRecord()
		if !iter.MapScan(rec) {
			break
		}
		recs = append(recs, rec)
	}
	return false, recs, iter.Close()
}

// execCAS is a single conditional statement read with MapScanCAS, as
// ShardStore.UpdateShard reads it.
func (a *temporalApp) execCAS(stmt string, args ...any) (bool, []map[string]any, error) {
	prev := map[string]any{}
	applied, err := a.s.Query(stmt, args...).MapScanCAS(prev)
	if err != nil || applied {
		return applied, nil, err
	}
	return false, []map[string]any{prev}, nil
}

// temporalNewConflictRecord is errors.go's newConflictRecord: "type" is
// scanned through a **int, which a null type (ScyllaDB's filler rows)
// leaves nil.
func temporalNewConflictRecord() map[string]any {
	t := new(int)
	return map[string]any{"type": &t}
}

// createShard is ShardStore.GetOrCreateShard's insert.
func (a *temporalApp) createShard(shard int32, rangeID int64, info []byte) (bool, []map[string]any, error) {
	return a.execCAS(tcqlCreateShardQuery, shard, tRowTypeShard, tRowTypeShardNamespaceID, tRowTypeShardWorkflowID, tRowTypeShardRunID,
		tDefaultVisibilityTimestamp, tRowTypeShardTaskID, info, tEncodingProto3, rangeID)
}

// updateShard is ShardStore.UpdateShard.
func (a *temporalApp) updateShard(shard int32, rangeID, previousRangeID int64, info []byte) (bool, []map[string]any, error) {
	return a.execCAS(tcqlUpdateShardQuery, info, tEncodingProto3, rangeID, shard, tRowTypeShard, tRowTypeShardNamespaceID,
		tRowTypeShardWorkflowID, tRowTypeShardRunID, tDefaultVisibilityTimestamp, tRowTypeShardTaskID, previousRangeID)
}

// deleteCurrent is MutableStateStore.DeleteCurrentWorkflowExecution's
// statement, read with MapScanCAS to see whether it applied (Temporal
// runs it with Exec, which does not say).
func (a *temporalApp) deleteCurrent(shard int32, namespaceID, workflowID, runID string) (bool, []map[string]any, error) {
	return a.execCAS(tcqlDeleteWorkflowExecutionCurrentRowQuery, shard, tRowTypeExecution, namespaceID, workflowID, tPermanentRunID,
		tDefaultVisibilityTimestamp, tRowTypeExecutionTaskID, runID)
}

// fence adds templateUpdateLeaseQuery, the shard's range id unchanged
// under the condition that it is still the caller's.
func (a *temporalApp) fence(b *gocql.Batch, shard int32, rangeID int64) {
	b.Query(tcqlUpdateLeaseQuery, rangeID, shard, tRowTypeShard, tRowTypeShardNamespaceID, tRowTypeShardWorkflowID,
		tRowTypeShardRunID, tDefaultVisibilityTimestamp, tRowTypeShardTaskID, rangeID)
}

// createWorkflowExecution is MutableStateStore.CreateWorkflowExecution.
func (a *temporalApp) createWorkflowExecution(shard int32, req *temporalCreate) (bool, []map[string]any, error) {
	b := a.s.NewBatch(gocql.LoggedBatch)
	wf := &req.wf
	if req.updateCurrent {
		b.Query(tcqlUpdateCurrentWorkflowExecutionForNewQuery, wf.runID, wf.execState, tEncodingProto3, wf.lastWriteVersion, wf.state,
			shard, tRowTypeExecution, wf.namespaceID, wf.workflowID, tPermanentRunID, tDefaultVisibilityTimestamp, tRowTypeExecutionTaskID,
			req.previousRunID, req.previousLastWriteVersion, int32(tWorkflowExecutionStateDone))
	} else {
		b.Query(tcqlCreateCurrentWorkflowExecutionQuery, shard, tRowTypeExecution, wf.namespaceID, wf.workflowID, tPermanentRunID,
			tDefaultVisibilityTimestamp, tRowTypeExecutionTaskID, wf.runID, wf.execState, tEncodingProto3, wf.lastWriteVersion, wf.state)
	}
	a.applyWorkflowSnapshotBatchAsNew(b, shard, wf)
	a.fence(b, shard, req.rangeID)
	return a.execBatch(b)
}

// updateWorkflowExecution is MutableStateStore.UpdateWorkflowExecution in
// UpdateWorkflowModeUpdateCurrent without a new run.
func (a *temporalApp) updateWorkflowExecution(shard int32, rangeID int64, wf *temporalWorkflow) (bool, []map[string]any, error) {
	b := a.s.NewBatch(gocql.LoggedBatch)
	b.Query(tcqlUpdateCurrentWorkflowExecutionQuery, wf.runID, wf.execState, tEncodingProto3, wf.lastWriteVersion, wf.state,
		shard, tRowTypeExecution, wf.namespaceID, wf.workflowID, tPermanentRunID, tDefaultVisibilityTimestamp, tRowTypeExecutionTaskID,
		wf.runID)
	a.applyWorkflowMutationBatch(b, shard, wf)
	a.fence(b, shard, rangeID)
	return a.execBatch(b)
}

// setWorkflowExecution is MutableStateStore.SetWorkflowExecution.
func (a *temporalApp) setWorkflowExecution(shard int32, rangeID int64, wf *temporalWorkflow) (bool, []map[string]any, error) {
	b := a.s.NewBatch(gocql.LoggedBatch)
	a.applyWorkflowSnapshotBatchAsReset(b, shard, wf)
	a.fence(b, shard, rangeID)
	return a.execBatch(b)
}

// addHistoryTasks is MutableStateTaskStore.AddHistoryTasks.
func (a *temporalApp) addHistoryTasks(shard int32, rangeID int64, tasks []temporalTask) (bool, []map[string]any, error) {
	b := a.s.NewBatch(gocql.LoggedBatch)
	a.applyTasks(b, shard, tasks)
	a.fence(b, shard, rangeID)
	return a.execBatch(b)
}

// applyWorkflowSnapshotBatchAsNew is util.go's: the execution row, its
// maps element by element, its requested signals, its tasks.
func (a *temporalApp) applyWorkflowSnapshotBatchAsNew(b *gocql.Batch, shard int32, wf *temporalWorkflow) {
	b.Query(tcqlCreateWorkflowExecutionQuery, shard, wf.namespaceID, wf.workflowID, wf.runID, tRowTypeExecution,
		wf.execInfo, tEncodingProto3, wf.execState, tEncodingProto3, wf.nextEventID, wf.dbRecordVersion,
		tDefaultVisibilityTimestamp, tRowTypeExecutionTaskID, wf.checksum, tEncodingProto3)
	a.updateActivityInfos(b, shard, wf)
	a.updateTimerInfos(b, shard, wf)
	a.updateSignalsRequested(b, shard, wf)
	a.applyTasks(b, shard, wf.tasks)
}

// applyWorkflowMutationBatch is util.go's: the execution row under its
// record version, its map elements upserted and deleted, its requested
// signals, its buffered events, its tasks.
func (a *temporalApp) applyWorkflowMutationBatch(b *gocql.Batch, shard int32, wf *temporalWorkflow) {
	a.updateExecution(b, shard, wf)
	a.updateActivityInfos(b, shard, wf)
	a.updateTimerInfos(b, shard, wf)
	a.updateSignalsRequested(b, shard, wf)
	if wf.newBufferedEvents != nil {
		ev := map[string]any{"encoding_type": tEncodingProto3, "version": int64(0), "data": wf.newBufferedEvents}
		b.Query(tcqlAppendBufferedEventsQuery, append([]any{[]map[string]any{ev}}, a.executionKey(shard, wf)...)...)
	}
	a.applyTasks(b, shard, wf.tasks)
}

// applyWorkflowSnapshotBatchAsReset is util.go's: the execution row under
// its record version, every map and the requested signals replaced
// whole, the buffered events cleared, its tasks.
func (a *temporalApp) applyWorkflowSnapshotBatchAsReset(b *gocql.Batch, shard int32, wf *temporalWorkflow) {
	a.updateExecution(b, shard, wf)
	key := a.executionKey(shard, wf)
	with := func(vals ...any) []any { return append(vals, key...) }
	b.Query(tcqlResetActivityInfoQuery, with(nonNilMap(wf.activities), temporalEncodingOf(len(wf.activities)))...)
	b.Query(tcqlResetTimerInfoQuery, with(nonNilMap(wf.timers), temporalEncodingOf(len(wf.timers)))...)
	b.Query(tcqlResetChildExecutionInfoQuery, with(nonNilMap(wf.children), temporalEncodingOf(len(wf.children)))...)
	b.Query(tcqlResetRequestCancelInfoQuery, with(nonNilMap(wf.requestCancels), temporalEncodingOf(len(wf.requestCancels)))...)
	b.Query(tcqlResetSignalInfoQuery, with(nonNilMap(wf.signals), temporalEncodingOf(len(wf.signals)))...)
	b.Query(tcqlResetChasmNodeQuery, with(nonNilMap(wf.chasmNodes), temporalEncodingOf(len(wf.chasmNodes)))...)
	b.Query(tcqlResetSignalRequestedQuery, with(append([]string{}, wf.signalRequested...))...)
	b.Query(tcqlDeleteBufferedEventsQuery, key...)
	a.applyTasks(b, shard, wf.tasks)
}

// executionKey is the WHERE values of a run's execution row.
func (a *temporalApp) executionKey(shard int32, wf *temporalWorkflow) []any {
	return []any{shard, tRowTypeExecution, wf.namespaceID, wf.workflowID, wf.runID, tDefaultVisibilityTimestamp, tRowTypeExecutionTaskID}
}

// updateExecution is util.go's, with a record version (Temporal's
// current path): the row's columns set under IF db_record_version = the
// previous one.
func (a *temporalApp) updateExecution(b *gocql.Batch, shard int32, wf *temporalWorkflow) {
	vals := []any{wf.execInfo, tEncodingProto3, wf.execState, tEncodingProto3, wf.nextEventID, wf.dbRecordVersion, wf.checksum, tEncodingProto3}
	vals = append(vals, a.executionKey(shard, wf)...)
	b.Query(tcqlUpdateWorkflowExecutionQuery, append(vals, wf.dbRecordVersion-1)...)
}

// updateActivityInfos is util.go's: one statement per upserted activity
// (the element and the map's encoding), one per deleted one.
func (a *temporalApp) updateActivityInfos(b *gocql.Batch, shard int32, wf *temporalWorkflow) {
	key := a.executionKey(shard, wf)
	for _, id := range sortedKeys(wf.activities) {
		b.Query(tcqlUpdateActivityInfoQuery, append([]any{id, wf.activities[id], tEncodingProto3}, key...)...)
	}
	for _, id := range wf.deleteActivities {
		b.Query(tcqlDeleteActivityInfoQuery, append([]any{id}, key...)...)
	}
}

// updateTimerInfos is util.go's, for the timer map.
func (a *temporalApp) updateTimerInfos(b *gocql.Batch, shard int32, wf *temporalWorkflow) {
	key := a.executionKey(shard, wf)
	for _, id := range sortedKeys(wf.timers) {
		b.Query(tcqlUpdateTimerInfoQuery, append([]any{id, wf.timers[id], tEncodingProto3}, key...)...)
	}
	for _, id := range wf.deleteTimers {
		b.Query(tcqlDeleteTimerInfoQuery, append([]any{id}, key...)...)
	}
}

// updateSignalsRequested is util.go's: the ids added, then those removed,
// each as a list of strings (convert.StringSetToSlice), which gocql
// marshals into the set<uuid>.
func (a *temporalApp) updateSignalsRequested(b *gocql.Batch, shard int32, wf *temporalWorkflow) {
	key := a.executionKey(shard, wf)
	if len(wf.signalRequested) > 0 {
		b.Query(tcqlUpdateSignalRequestedQuery, append([]any{wf.signalRequested}, key...)...)
	}
	if len(wf.deleteSignalRequested) > 0 {
		b.Query(tcqlDeleteWorkflowExecutionSignalRequestedQuery, append([]any{wf.deleteSignalRequested}, key...)...)
	}
}

// applyTasks is util.go's, for the transfer, timer and visibility
// categories: one INSERT per task, a timer task at its fire time.
func (a *temporalApp) applyTasks(b *gocql.Batch, shard int32, tasks []temporalTask) {
	for _, task := range tasks {
		switch task.category {
		case tRowTypeTransferTask:
			b.Query(tcqlCreateTransferTaskQuery, shard, tRowTypeTransferTask, tRowTypeTransferNamespaceID, tRowTypeTransferWorkflowID,
				tRowTypeTransferRunID, task.blob, tEncodingProto3, tDefaultVisibilityTimestamp, task.id)
		case tRowTypeTimerTask:
			b.Query(tcqlCreateTimerTaskQuery, shard, tRowTypeTimerTask, tRowTypeTimerNamespaceID, tRowTypeTimerWorkflowID,
				tRowTypeTimerRunID, task.blob, tEncodingProto3, task.fire.UnixMilli(), task.id)
		case tRowTypeVisibilityTask:
			b.Query(tcqlCreateVisibilityTaskQuery, shard, tRowTypeVisibilityTask, tRowTypeVisibilityNamespaceID, tRowTypeVisibilityWorkflowID,
				tRowTypeVisibilityRunID, task.blob, tEncodingProto3, tDefaultVisibilityTimestamp, task.id)
		}
	}
}

// temporalEncodingOf is the encoding a reset binds for a map of n
// entries: convertBlobMapToByteMap takes it from the entries, so an
// empty map binds the zero EncodingType's.
func temporalEncodingOf(n int) string {
	if n == 0 {
		return tEncodingUnspecified
	}
	return tEncodingProto3
}

// nonNilMap is m, or an empty map for nil, as Temporal's conversions make
// one.
func nonNilMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return m
}

// sortedKeys is m's keys in order.
func sortedKeys[K interface{ ~int64 | ~string }, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ---------------------------------------------------------------------------
// kandra's side: the same batches as typed units, built literally, one
// step per Temporal statement, in Temporal's order: an INSERT as a Save
// (IF NOT EXISTS: SaveIfNotExists), an UPDATE as a Patch (conditional:
// its If; unconditional: Upsert), a conditional DELETE as a DeleteIf.

// temporalStep is a conditional step of a unit: the statement it ports,
// and what the server said of its row.
type temporalStep struct {
	role, template string
	step           *kstore.Step[temporalExecution]
}

// temporalBuild collects a unit's steps.
type temporalBuild struct {
	in        kstore.UnitRepo[temporalExecution]
	f         temporalFields
	templates []string // per step, the Temporal statement it ports
	conds     []temporalStep
}

// add records step s, porting the Temporal statement named; role names
// a conditional step ("" for a plain write).
func (b *temporalBuild) add(role, template string, s *kstore.Step[temporalExecution]) {
	b.templates = append(b.templates, template)
	if role != "" {
		b.conds = append(b.conds, temporalStep{role: role, template: template, step: s})
	}
}

// fence is templateUpdateLeaseQuery: a Patch of the shard row, Set and
// Eq of the range id the caller holds.
func (b *temporalBuild) fence(shard int32, rangeID int64) {
	b.add("fence", "templateUpdateLeaseQuery", b.in.Patch(temporalShardRow(shard),
		kstore.Set(b.f.rangeID, ptr(rangeID)).If(kstore.Eq(b.f.rangeID, ptr(rangeID)))))
}

// currentChanges are the columns templateUpdateCurrentWorkflowExecution-
// Query sets.
func (b *temporalBuild) currentChanges(wf *temporalWorkflow) kstore.Patch[temporalExecution] {
	return kstore.Set(b.f.currentRunID, ptr(uuid.MustParse(wf.runID))).
		And(kstore.Set(b.f.executionState, wf.execState)).
		And(kstore.Set(b.f.executionStateEnc, ptr(tEncodingProto3))).
		And(kstore.Set(b.f.lastWriteVersion, ptr(wf.lastWriteVersion))).
		And(kstore.Set(b.f.state, ptr(wf.state)))
}

// createWorkflowExecution is CreateWorkflowExecution as a unit.
func (b *temporalBuild) createWorkflowExecution(shard int32, req *temporalCreate) {
	wf := &req.wf
	if req.updateCurrent {
		cond := kstore.Eq(b.f.currentRunID, ptr(uuid.MustParse(req.previousRunID))).
			And(kstore.Eq(b.f.lastWriteVersion, ptr(req.previousLastWriteVersion))).
			And(kstore.Eq(b.f.state, ptr(int32(tWorkflowExecutionStateDone))))
		b.add("current", "templateUpdateCurrentWorkflowExecutionForNewQuery",
			b.in.Patch(temporalCurrentRow(shard, wf.namespaceID, wf.workflowID), b.currentChanges(wf).If(cond), kstore.TTL(0)))
	} else {
		cur := temporalCurrentRow(shard, wf.namespaceID, wf.workflowID)
		cur.CurrentRunID, cur.ExecutionState, cur.ExecutionStateEncoding = ptr(uuid.MustParse(wf.runID)), wf.execState, ptr(tEncodingProto3)
		cur.WorkflowLastWriteVersion, cur.WorkflowState = ptr(wf.lastWriteVersion), ptr(wf.state)
		b.add("current", "templateCreateCurrentWorkflowExecutionQuery", b.in.SaveIfNotExists(cur, kstore.TTL(0)))
	}
	b.snapshotAsNew(shard, wf)
	b.fence(shard, req.rangeID)
}

// snapshotAsNew is applyWorkflowSnapshotBatchAsNew as steps: the
// execution row IF NOT EXISTS, then its map elements and requested
// signals as Temporal writes them, one Patch per statement, then its
// tasks.
func (b *temporalBuild) snapshotAsNew(shard int32, wf *temporalWorkflow) {
	e := temporalExecutionRow(shard, wf.namespaceID, wf.workflowID, wf.runID)
	e.Execution, e.ExecutionEncoding, e.ExecutionState, e.ExecutionStateEncoding = wf.execInfo, ptr(tEncodingProto3), wf.execState, ptr(tEncodingProto3)
	e.NextEventID, e.DBRecordVersion, e.Checksum, e.ChecksumEncoding = ptr(wf.nextEventID), ptr(wf.dbRecordVersion), wf.checksum, ptr(tEncodingProto3)
	b.add("execution", "templateCreateWorkflowExecutionQuery", b.in.SaveIfNotExists(e))
	b.elementUpdates(shard, wf)
	b.tasks(shard, wf.tasks)
}

// elementUpdates are updateActivityInfos, updateTimerInfos and
// updateSignalsRequested as Upsert Patches of the execution row, one per
// statement: an upserted map element with the map's encoding, a deleted
// one, the requested signals added, those removed.
func (b *temporalBuild) elementUpdates(shard int32, wf *temporalWorkflow) {
	patch := func(template string, p kstore.Patch[temporalExecution]) {
		b.add("", template, b.in.Patch(temporalExecutionRow(shard, wf.namespaceID, wf.workflowID, wf.runID), p, kstore.Upsert()))
	}
	for _, id := range sortedKeys(wf.activities) {
		patch("templateUpdateActivityInfoQuery", kstore.Put(b.f.activities, id, wf.activities[id]).And(kstore.Set(b.f.activityEnc, ptr(tEncodingProto3))))
	}
	for _, id := range wf.deleteActivities {
		patch("templateDeleteActivityInfoQuery", kstore.RemoveKeys(b.f.activities, id))
	}
	for _, id := range sortedKeys(wf.timers) {
		patch("templateUpdateTimerInfoQuery", kstore.Put(b.f.timers, id, wf.timers[id]).And(kstore.Set(b.f.timerEnc, ptr(tEncodingProto3))))
	}
	for _, id := range wf.deleteTimers {
		patch("templateDeleteTimerInfoQuery", kstore.RemoveKeys(b.f.timers, id))
	}
	if len(wf.signalRequested) > 0 {
		patch("templateUpdateSignalRequestedQuery", kstore.Add(b.f.signalRequested, temporalUUIDs(wf.signalRequested)...))
	}
	if len(wf.deleteSignalRequested) > 0 {
		patch("templateDeleteWorkflowExecutionSignalRequestedQuery", kstore.Remove(b.f.signalRequested, temporalUUIDs(wf.deleteSignalRequested)...))
	}
}

// updateExecution is util.go's updateExecution as a Patch of the
// execution row, conditional on the previous record version.
func (b *temporalBuild) updateExecution(shard int32, wf *temporalWorkflow) {
	p := kstore.Set(b.f.execution, wf.execInfo).
		And(kstore.Set(b.f.executionEnc, ptr(tEncodingProto3))).
		And(kstore.Set(b.f.executionState, wf.execState)).
		And(kstore.Set(b.f.executionStateEnc, ptr(tEncodingProto3))).
		And(kstore.Set(b.f.nextEventID, ptr(wf.nextEventID))).
		And(kstore.Set(b.f.dbRecordVersion, ptr(wf.dbRecordVersion))).
		And(kstore.Set(b.f.checksum, wf.checksum)).
		And(kstore.Set(b.f.checksumEnc, ptr(tEncodingProto3)))
	b.add("execution", "templateUpdateWorkflowExecutionQuery", b.in.Patch(temporalExecutionRow(shard, wf.namespaceID, wf.workflowID, wf.runID),
		p.If(kstore.Eq(b.f.dbRecordVersion, ptr(wf.dbRecordVersion-1)))))
}

// updateWorkflowExecution is UpdateWorkflowExecution (UpdateCurrent, no
// new run) as a unit.
func (b *temporalBuild) updateWorkflowExecution(shard int32, rangeID int64, wf *temporalWorkflow) {
	b.add("current", "templateUpdateCurrentWorkflowExecutionQuery", b.in.Patch(temporalCurrentRow(shard, wf.namespaceID, wf.workflowID),
		b.currentChanges(wf).If(kstore.Eq(b.f.currentRunID, ptr(uuid.MustParse(wf.runID)))), kstore.TTL(0)))
	b.updateExecution(shard, wf)
	b.elementUpdates(shard, wf)
	if wf.newBufferedEvents != nil {
		ev := temporalEventBatch{EncodingType: tEncodingProto3, Version: 0, Data: wf.newBufferedEvents}
		b.add("", "templateAppendBufferedEventsQuery", b.in.Patch(temporalExecutionRow(shard, wf.namespaceID, wf.workflowID, wf.runID),
			kstore.Append(b.f.buffered, ev), kstore.Upsert()))
	}
	b.tasks(shard, wf.tasks)
	b.fence(shard, rangeID)
}

// setWorkflowExecution is SetWorkflowExecution as a unit: every map and
// the requested signals Set whole, the buffered events Cleared.
func (b *temporalBuild) setWorkflowExecution(shard int32, rangeID int64, wf *temporalWorkflow) {
	b.updateExecution(shard, wf)
	key := func() *temporalExecution { return temporalExecutionRow(shard, wf.namespaceID, wf.workflowID, wf.runID) }
	reset := func(template string, p kstore.Patch[temporalExecution]) {
		b.add("", template, b.in.Patch(key(), p, kstore.Upsert()))
	}
	enc := func(m int) *string { return ptr(temporalEncodingOf(m)) }
	reset("templateResetActivityInfoQuery", kstore.Set(b.f.activities, wf.activities).And(kstore.Set(b.f.activityEnc, enc(len(wf.activities)))))
	reset("templateResetTimerInfoQuery", kstore.Set(b.f.timers, wf.timers).And(kstore.Set(b.f.timerEnc, enc(len(wf.timers)))))
	reset("templateResetChildExecutionInfoQuery", kstore.Set(b.f.children, wf.children).And(kstore.Set(b.f.childEnc, enc(len(wf.children)))))
	reset("templateResetRequestCancelInfoQuery", kstore.Set(b.f.cancels, wf.requestCancels).And(kstore.Set(b.f.cancelEnc, enc(len(wf.requestCancels)))))
	reset("templateResetSignalInfoQuery", kstore.Set(b.f.signals, wf.signals).And(kstore.Set(b.f.signalEnc, enc(len(wf.signals)))))
	reset("templateResetChasmNodeQuery", kstore.Set(b.f.chasmNodes, wf.chasmNodes).And(kstore.Set(b.f.chasmEnc, enc(len(wf.chasmNodes)))))
	reset("templateResetSignalRequestedQuery", kstore.Set(b.f.signalRequested, temporalUUIDSet(wf.signalRequested)))
	reset("templateDeleteBufferedEventsQuery", kstore.Clear(b.f.buffered))
	b.tasks(shard, wf.tasks)
	b.fence(shard, rangeID)
}

// tasks is applyTasks: a plain Save per task row.
func (b *temporalBuild) tasks(shard int32, tasks []temporalTask) {
	for _, task := range tasks {
		name := map[int32]string{tRowTypeTransferTask: "templateCreateTransferTaskQuery", tRowTypeTimerTask: "templateCreateTimerTaskQuery",
			tRowTypeVisibilityTask: "templateCreateVisibilityTaskQuery"}[task.category]
		b.add("", name, b.in.Save(temporalTaskRow(shard, task)))
	}
}

// temporalUUIDs parses ids.
func temporalUUIDs(ids []string) []uuid.UUID {
	out := make([]uuid.UUID, len(ids))
	for i, id := range ids {
		out[i] = uuid.MustParse(id)
	}
	return out
}

// temporalUUIDSet is ids as a set (nil for none).
func temporalUUIDSet(ids []string) map[uuid.UUID]struct{} {
	if len(ids) == 0 {
		return nil
	}
	out := map[uuid.UUID]struct{}{}
	for _, id := range temporalUUIDs(ids) {
		out[id] = struct{}{}
	}
	return out
}

// temporalSent records the statements kandra's session sends.
type temporalSent struct {
	mu    sync.Mutex
	stmts []string
}

// ObserveQuery records a statement sent alone.
func (o *temporalSent) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	o.add(strings.Join(strings.Fields(q.Statement), " "))
}

// ObserveBatch records a batch, its statements in order.
func (o *temporalSent) ObserveBatch(_ context.Context, b gocql.ObservedBatch) {
	parts := make([]string, len(b.Statements))
	for i, s := range b.Statements {
		parts[i] = strings.Join(strings.Fields(s), " ")
	}
	o.add("BATCH [" + strings.Join(parts, "; ") + "]")
}

// add appends s.
func (o *temporalSent) add(s string) {
	o.mu.Lock()
	o.stmts = append(o.stmts, s)
	o.mu.Unlock()
}

// take returns what was recorded and forgets it.
func (o *temporalSent) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.stmts
	o.stmts = nil
	return out
}

// temporalTyped runs the typed units.
type temporalTyped struct {
	rt   *kstore.Store
	repo *kstore.Repo[temporalExecution]
	f    temporalFields
	sent *temporalSent
}

// temporalTypedRun is what a typed unit did.
type temporalTypedRun struct {
	applied bool
	err     error
	steps   []string // the Temporal statement of each step
	conds   []temporalStep
	sent    []string
}

// temporalRefused reports an error of Apply that refused the unit before
// sending anything.
func temporalRefused(err error, sent []string) bool {
	return errors.Is(err, kerrors.ErrArgument) && len(sent) == 0
}

// run builds the unit on shard and applies it.
func (k *temporalTyped) run(ctx context.Context, build func(b *temporalBuild, shard int32), shard int32) temporalTypedRun {
	u := k.rt.Unit()
	b := &temporalBuild{in: k.repo.In(u), f: k.f}
	build(b, shard)
	k.sent.take()
	applied, err := u.Apply(ctx)
	return temporalTypedRun{applied: applied, err: err, steps: b.templates, conds: b.conds, sent: k.sent.take()}
}

// ---------------------------------------------------------------------------
// Reading what the server returned: Temporal's conflict records and the
// typed Outcomes, brought to the fields Temporal's errors.go reads.

// temporalRecord is a returned row as errors.go reads it.
type temporalRecord struct {
	Type                          int
	NamespaceID, WorkflowID       string
	RunID                         string
	RangeID                       int64
	CurrentRunID                  string
	ExecutionState, StateEncoding string
	LastWriteVersion              int64
	WorkflowState                 int
	NextEventID, DBRecordVersion  int64
}

// temporalZeroUUID is how gocql reads a null uuid into an interface.
var temporalZeroUUID = gocql.UUID{}.String()

// temporalRecordOfMap reads one of Temporal's conflict records; keyed
// keeps its key columns (a batch's rows carry them, a single statement's
// do not). ok is false for a record without a row.
func temporalRecordOfMap(m map[string]any, keyed bool) (temporalRecord, bool) {
	var r temporalRecord
	row := false
	for k := range m {
		row = row || k != "type" && k != "[applied]"
	}
	if !row {
		return r, false
	}
	uuidOf := func(k string) string {
		if u, ok := m[k].(gocql.UUID); ok {
			return u.String()
		}
		return temporalZeroUUID
	}
	i64 := func(k string) int64 { v, _ := m[k].(int64); return v }
	if keyed {
		if t, ok := m["type"].(*int); ok && t != nil {
			r.Type = *t
		}
		r.NamespaceID, r.RunID = uuidOf("namespace_id"), uuidOf("run_id")
		r.WorkflowID, _ = m["workflow_id"].(string)
	}
	r.RangeID, r.CurrentRunID = i64("range_id"), uuidOf("current_run_id")
	state, _ := m["execution_state"].([]byte)
	r.ExecutionState = hex.EncodeToString(state)
	r.StateEncoding, _ = m["execution_state_encoding"].(string)
	r.LastWriteVersion, r.NextEventID, r.DBRecordVersion = i64("workflow_last_write_version"), i64("next_event_id"), i64("db_record_version")
	r.WorkflowState, _ = m["workflow_state"].(int)
	return r, true
}

// temporalRecordOf reads a typed Outcome's row as the record Temporal
// would have read.
func temporalRecordOf(e *temporalExecution, keyed bool) temporalRecord {
	var r temporalRecord
	if keyed {
		r.Type, r.NamespaceID, r.WorkflowID, r.RunID = int(e.Type), e.NamespaceID.String(), e.WorkflowID, e.RunID.String()
	}
	r.CurrentRunID = temporalZeroUUID
	if e.CurrentRunID != nil {
		r.CurrentRunID = e.CurrentRunID.String()
	}
	deref := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	r.RangeID, r.LastWriteVersion, r.NextEventID, r.DBRecordVersion = deref(e.RangeID), deref(e.WorkflowLastWriteVersion), deref(e.NextEventID), deref(e.DBRecordVersion)
	r.ExecutionState = hex.EncodeToString(e.ExecutionState)
	if e.ExecutionStateEncoding != nil {
		r.StateEncoding = *e.ExecutionStateEncoding
	}
	if e.WorkflowState != nil {
		r.WorkflowState = int(*e.WorkflowState)
	}
	return r
}

// temporalCASCondition is errors.go's executionCASCondition.
type temporalCASCondition struct {
	runID       string
	dbVersion   int64
	nextEventID int64
}

// temporalConvertErrors is errors.go's convertErrors on the records: the
// error Temporal returns, by its type's priority (shard ownership lost,
// current workflow condition, workflow condition, condition failed), as
// "Type: message". The current row's state blob is compared as bytes (it
// is Temporal's proto, which the test does not decode).
func temporalConvertErrors(recs []temporalRecord, currentRecordRunID string, rangeID int64, requestCurrentRunID string, conds []temporalCASCondition) string {
	type found struct {
		prio int
		msg  string
	}
	var errs []found
	for _, r := range recs {
		if r.Type == tRowTypeShard && r.RangeID != rangeID {
			errs = append(errs, found{0, fmt.Sprintf("ShardOwnershipLostError: Encounter shard ownership lost, request range ID: %v, actual range ID: %v", rangeID, r.RangeID)})
		}
		if r.Type == tRowTypeExecution && r.RunID == currentRecordRunID && r.CurrentRunID != requestCurrentRunID {
			errs = append(errs, found{1, fmt.Sprintf("CurrentWorkflowConditionFailedError: Encounter current workflow error, request run ID: %v, actual run ID: %v (state %s/%s, last write version %d)",
				requestCurrentRunID, r.CurrentRunID, r.ExecutionState, r.StateEncoding, r.LastWriteVersion)})
		}
		for _, c := range conds {
			if r.Type != tRowTypeExecution || r.RunID != c.runID {
				continue
			}
			if r.DBRecordVersion != c.dbVersion {
				errs = append(errs, found{2, fmt.Sprintf("WorkflowConditionFailedError: Encounter workflow db version mismatch, request db version: %v, actual db version: %v (next event id %d)",
					c.dbVersion, r.DBRecordVersion, r.NextEventID)})
			}
		}
	}
	if len(errs) == 0 {
		return fmt.Sprintf("ConditionFailedError: Encounter unknown condition update error: range ID: %v, %d possibly conflicting records", rangeID, len(recs))
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].prio < errs[j].prio })
	return errs[0].msg
}

// ---------------------------------------------------------------------------
// The cases.

// temporalCase is one of Temporal's writes, run with its own CQL on one
// partition and as a typed unit on the other.
type temporalCase struct {
	name  string // Temporal's call and the situation
	file  string
	batch bool
	app   func(shard int32) (bool, []map[string]any, error)
	typed func(b *temporalBuild, shard int32)
	want  bool
	// For a case that does not apply: the role of the step whose row
	// tells why, and what that row must hold (check returns "" when it
	// does); decide is how Temporal turns the rows into its error ("" for
	// a write whose result Temporal does not read).
	conflict string
	check    func(cur *temporalExecution) string
	decide   func(recs []temporalRecord) string
}

// temporalResult is what was found about one case.
type temporalResult struct {
	c                         *temporalCase
	appApplied                bool
	typed                     temporalTypedRun
	outcomeOK, rowsOK, typeOK bool
	rows                      int // the partition's rows after the case
	problems                  []string
}

// fail records a problem of the case.
func (r *temporalResult) fail(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

// temporalBytes is a labelled blob, for readable rows.
func temporalBytes(label string) []byte { return []byte(label) }

// TestTemporalBatchesTyped shows that the conditional LOGGED BATCHes of
// Temporal's Cassandra persistence (github.com/temporalio/temporal at
// commit 6805caea59e35d0611ed96be69641b8d86bff11c, temporalCommit) on its
// executions table run as typed kandra units, with the same outcome and
// the same rows. Temporal keeps a shard's rows in one partition (shard_id):
// the shard row with its range_id, each workflow's current-execution row,
// each run's execution row, the task rows. Every write of a shard is one
// batch fenced by templateUpdateLeaseQuery (IF range_id = ?), with the
// current row's condition (IF NOT EXISTS, IF current_run_id = ? [and
// workflow_last_write_version = ? and workflow_state = ?]) and the
// execution row's (IF NOT EXISTS, IF db_record_version = ?).
//
//	CreateWorkflowExecution (BrandNew)      current INSERT IF NOT EXISTS USING TTL 0, execution INSERT IF NOT EXISTS,
//	                                        map elements, signals, task INSERTs, fence
//	  -> current.SaveIfNotExists(TTL(0)), execution.SaveIfNotExists, Save per task, shard.Patch(Set(range).If(Eq(range)))
//	CreateWorkflowExecution (UpdateCurrent) current UPDATE ... IF current_run_id = ? and workflow_last_write_version = ? and workflow_state = ?
//	  -> current.Patch(Set(...).If(Eq(run).And(Eq(lwv)).And(Eq(state))), TTL(0))
//	UpdateWorkflowExecution (UpdateCurrent) current UPDATE IF current_run_id = ?, execution UPDATE IF db_record_version = ?,
//	                                        map elements put and deleted, signals added and removed, buffered events appended, tasks, fence
//	  -> Patch(...If(Eq)), Patch(Put/RemoveKeys/Add/Remove/Append, Upsert()), Save, fence
//	SetWorkflowExecution                    execution UPDATE IF db_record_version = ?, every map and set replaced, buffered events cleared, tasks, fence
//	  -> Patch(...If(Eq)), Patch(Set(map)..., Upsert()), Patch(Clear(list), Upsert()), Save, fence
//	AddHistoryTasks                         task INSERTs, fence
//	GetOrCreateShard, UpdateShard, DeleteCurrentWorkflowExecution: single conditional statements, as units of one step
//
// Each case runs with Temporal's statements on shard 101 (a gocql LOGGED
// batch read with MapExecuteBatchCAS, as Temporal's) and as a unit on shard
// 102, with the same values. Compared: applied or not; for a case that
// does not apply, the rows the server returned (Temporal's conflict
// records against the conditional steps' Outcomes), the error Temporal
// derives from them (errors.go's convertErrors, ported) on both, and the
// value the conflicting step's Outcome.Current holds (the shard row's
// range_id, the current row's current_run_id, the execution row's
// db_record_version); after every case, both partitions whole, cell by
// cell, with TTL(col) of every scalar column (none on either: Temporal's
// USING TTL 0), and Temporal's own reads.
//
// Each unit is built literally, one step per Temporal statement, in
// Temporal's order (a whole-row INSERT and element updates of the same
// row's maps, several element changes of one map, all in one unit); that
// kandra refuses one is a failure of the test. The summary line:
//
//	real-server: temporal batches=10 typed=10 same-outcome=10 same-rows=10 single-statements=5 same=5
func TestTemporalBatchesTyped(t *testing.T) {
	s := session(t)
	ctx := context.Background()
	ks := keyspaceName("temporal")

	// 1. Temporal's keyspace and table, from its CQL.
	trackKeyspace(ks)
	if err := execDDL(s, fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'NetworkTopologyStrategy', '%s': 1}", ks, nodeDC)); err != nil {
		t.Fatalf("keyspace: %v", err)
	}
	// Temporal's session: bound to the keyspace, LOCAL_QUORUM and
	// LOCAL_SERIAL (its defaults, common/config/persistence.go).
	c := newCluster()
	c.Keyspace = ks
	c.Consistency = gocql.LocalQuorum
	c.SerialConsistency = gocql.LocalSerial
	js, err := c.CreateSession()
	if err != nil {
		t.Fatalf("a session on %s: %v", ks, err)
	}
	defer js.Close()
	for _, stmt := range []string{tcqlSerializedEventBatchType, tcqlExecutionsTable} {
		if err := execDDL(js, stmt); err != nil {
			t.Fatalf("Temporal's schema:\n%s\n-> %v", stmt, err)
		}
	}

	// 2. kandra's entity of it, checked against the live table.
	executions := mustTable[temporalExecution](t)
	k, err := kandra.NewKeyspace(kandra.KeyspaceSpec{Name: ks, Replication: testReplication(), Targets: serverTarget()}, executions)
	if err != nil {
		t.Fatalf("NewKeyspace: %v", err)
	}
	diffs, err := compareSchema(s, ks, executions.Schema())
	if err != nil {
		t.Fatalf("reading executions: %v", err)
	}
	for _, d := range diffs {
		t.Errorf("kandra's executions differs from Temporal's: %s", d)
	}
	if p, err := migrate.PlanFor(ctx, kgocql.New(s), k); err != nil || !p.Empty() || len(p.Extra) > 0 {
		t.Errorf("the migrator's plan from Temporal's keyspace to kandra's entity is not empty:\n%v, %v", p, err)
	}
	kc := newCluster()
	sent := &temporalSent{}
	kc.QueryObserver, kc.BatchObserver = sent, sent
	kcs, err := kc.CreateSession()
	if err != nil {
		t.Fatalf("kandra's session: %v", err)
	}
	defer kcs.Close()
	rt, err := kstore.New(kgocql.New(kcs), k, kstore.WithConsistency(kandra.ConsistencyLocalQuorum), kstore.WithSerialConsistency(kandra.ConsistencyLocalSerial))
	if err != nil {
		t.Fatalf("kstore.New: %v", err)
	}
	defer func() { _ = rt.Close(ctx) }()
	typed := &temporalTyped{rt: rt, repo: kstore.MustNewRepo(rt, executions), f: newTemporalFields(executions), sent: sent}
	app := &temporalApp{s: js}
	cols, err := readColumns(s, ks, "executions")
	if err != nil {
		t.Fatalf("columns: %v", err)
	}

	// 3. The scenario: one workflow, its runs A (created, then updated and
	// completed, then reset), B (a second start while A is current), C
	// (started after A completed), D (a start that still names A).
	const shardJ, shardK = int32(101), int32(102)
	const ns, wfID = "6f1c2d3e-4a5b-4c6d-8e9f-a0b1c2d3e4f5", "order-42"
	runA, runB := "0a000000-0000-4000-8000-00000000000a", "0b000000-0000-4000-8000-00000000000b"
	runC, runD := "0c000000-0000-4000-8000-00000000000c", "0d000000-0000-4000-8000-00000000000d"
	sigA, sigB, sigC := "5a000000-0000-4000-8000-000000000001", "5b000000-0000-4000-8000-000000000002", "5c000000-0000-4000-8000-000000000003"
	fire := tDefaultDateTime.AddDate(26, 0, 0).Add(1234 * time.Millisecond)
	const lwv = int64(7)
	wfOf := func(run string, version, next int64, state int32) temporalWorkflow {
		tag := run[:2] + " v" + strconv.FormatInt(version, 10)
		return temporalWorkflow{namespaceID: ns, workflowID: wfID, runID: run,
			execInfo: temporalBytes("execution info " + tag), execState: temporalBytes("execution state " + tag), checksum: temporalBytes("checksum " + tag),
			state: state, lastWriteVersion: lwv, nextEventID: next, dbRecordVersion: version}
	}
	createA := &temporalCreate{rangeID: 1, wf: wfOf(runA, 1, 3, tWorkflowExecutionStateRunning)}
	createA.wf.activities = map[int64][]byte{3: temporalBytes("activity 3"), 5: temporalBytes("activity 5")}
	createA.wf.timers = map[string][]byte{"t1": temporalBytes("timer t1")}
	createA.wf.signalRequested = []string{sigA}
	createA.wf.tasks = []temporalTask{{category: tRowTypeTransferTask, id: 1000, blob: temporalBytes("transfer 1000")},
		{category: tRowTypeTimerTask, id: 1001, fire: fire, blob: temporalBytes("timer 1001")}}
	createB := &temporalCreate{rangeID: 1, wf: wfOf(runB, 1, 3, tWorkflowExecutionStateRunning)}
	createB.wf.activities = map[int64][]byte{1: temporalBytes("activity 1 of B")}
	createB.wf.tasks = []temporalTask{{category: tRowTypeTransferTask, id: 1010, blob: temporalBytes("transfer 1010")}}
	// A's first mutation: completes it (its current row's state), two
	// activities put and one deleted, a timer put and one deleted, a
	// signal id added and one removed, a buffered event, two tasks.
	mutA2 := wfOf(runA, 2, 12, tWorkflowExecutionStateDone)
	mutA2.activities = map[int64][]byte{5: temporalBytes("activity 5 v2"), 9: temporalBytes("activity 9")}
	mutA2.deleteActivities = []int64{3}
	mutA2.timers = map[string][]byte{"t2": temporalBytes("timer t2")}
	mutA2.deleteTimers = []string{"t1"}
	mutA2.signalRequested, mutA2.deleteSignalRequested = []string{sigB}, []string{sigA}
	mutA2.newBufferedEvents = temporalBytes("buffered events")
	mutA2.tasks = []temporalTask{{category: tRowTypeTransferTask, id: 1002, blob: temporalBytes("transfer 1002")},
		{category: tRowTypeVisibilityTask, id: 1003, blob: temporalBytes("visibility 1003")}}
	// A second mutation: one activity, one task.
	mutA3 := wfOf(runA, 3, 14, tWorkflowExecutionStateDone)
	mutA3.activities = map[int64][]byte{9: temporalBytes("activity 9 v3")}
	mutA3.tasks = []temporalTask{{category: tRowTypeTransferTask, id: 1006, blob: temporalBytes("transfer 1006")}}
	// A reset snapshot of A: the maps replaced (one empty), signals too.
	resetA := wfOf(runA, 3, 15, tWorkflowExecutionStateDone)
	resetA.activities = map[int64][]byte{5: temporalBytes("activity 5 reset")}
	resetA.timers = map[string][]byte{}
	resetA.children = map[int64][]byte{11: temporalBytes("child 11")}
	resetA.signals = map[int64][]byte{13: temporalBytes("signal 13")}
	resetA.chasmNodes = map[string][]byte{"root": temporalBytes("chasm root")}
	resetA.signalRequested = []string{sigC}
	resetA.tasks = []temporalTask{{category: tRowTypeVisibilityTask, id: 1008, blob: temporalBytes("visibility 1008")}}
	createC := &temporalCreate{rangeID: 2, updateCurrent: true, previousRunID: runA, previousLastWriteVersion: lwv, wf: wfOf(runC, 1, 3, tWorkflowExecutionStateRunning)}
	createC.wf.tasks = []temporalTask{{category: tRowTypeTransferTask, id: 1020, blob: temporalBytes("transfer 1020")},
		{category: tRowTypeTimerTask, id: 1021, fire: fire.Add(time.Minute), blob: temporalBytes("timer 1021")}}
	createD := &temporalCreate{rangeID: 2, updateCurrent: true, previousRunID: runA, previousLastWriteVersion: lwv, wf: wfOf(runD, 1, 3, tWorkflowExecutionStateRunning)}
	addTasks := []temporalTask{{category: tRowTypeTransferTask, id: 1004, blob: temporalBytes("transfer 1004")},
		{category: tRowTypeTimerTask, id: 1005, fire: fire.Add(time.Second), blob: temporalBytes("timer 1005")}}
	staleTasks := []temporalTask{{category: tRowTypeTransferTask, id: 1007, blob: temporalBytes("transfer 1007")}}

	// The errors Temporal derives, per call.
	createDecide := func(req *temporalCreate) func([]temporalRecord) string {
		requestCurrent := ""
		if req.updateCurrent {
			requestCurrent = req.previousRunID
		}
		return func(recs []temporalRecord) string {
			return temporalConvertErrors(recs, tPermanentRunID, req.rangeID, requestCurrent,
				[]temporalCASCondition{{runID: req.wf.runID, dbVersion: req.wf.dbRecordVersion - 1, nextEventID: req.wf.nextEventID}})
		}
	}
	updateDecide := func(rangeID int64, wf *temporalWorkflow) func([]temporalRecord) string {
		return func(recs []temporalRecord) string {
			return temporalConvertErrors(recs, tPermanentRunID, rangeID, wf.runID,
				[]temporalCASCondition{{runID: wf.runID, dbVersion: wf.dbRecordVersion - 1, nextEventID: wf.nextEventID}})
		}
	}
	addTasksDecide := func(rangeID int64) func([]temporalRecord) string {
		return func(recs []temporalRecord) string { // AddHistoryTasks reads the first record's range_id
			if len(recs) > 0 && recs[0].RangeID != rangeID {
				return fmt.Sprintf("ShardOwnershipLostError: Failed to add tasks.  Request RangeID: %v, Actual RangeID: %v", rangeID, recs[0].RangeID)
			}
			return "Unavailable: AddTasks operation failed because of conditional failure."
		}
	}
	rangeIs := func(want int64) func(*temporalExecution) string {
		return func(cur *temporalExecution) string {
			if cur.RangeID == nil || *cur.RangeID != want {
				return fmt.Sprintf("range_id %v, want %d", deref(cur.RangeID), want)
			}
			return ""
		}
	}
	currentIs := func(want string) func(*temporalExecution) string {
		return func(cur *temporalExecution) string {
			if cur.CurrentRunID == nil || cur.CurrentRunID.String() != want {
				return fmt.Sprintf("current_run_id %v, want %s", deref(cur.CurrentRunID), want)
			}
			return ""
		}
	}
	versionIs := func(want int64) func(*temporalExecution) string {
		return func(cur *temporalExecution) string {
			if cur.DBRecordVersion == nil || *cur.DBRecordVersion != want {
				return fmt.Sprintf("db_record_version %v, want %d", deref(cur.DBRecordVersion), want)
			}
			return ""
		}
	}
	const (
		fileShard = "common/persistence/cassandra/shard_store.go"
		fileMS    = "common/persistence/cassandra/mutable_state_store.go (+ util.go)"
		fileTasks = "common/persistence/cassandra/mutable_state_task_store.go"
	)
	cases := []*temporalCase{
		{name: "GetOrCreateShard: the shard row IF NOT EXISTS", file: fileShard, want: true,
			app: func(sh int32) (bool, []map[string]any, error) {
				return app.createShard(sh, 1, temporalBytes("shard info r1"))
			},
			typed: func(b *temporalBuild, sh int32) {
				e := temporalShardRow(sh)
				e.Shard, e.ShardEncoding, e.RangeID = temporalBytes("shard info r1"), ptr(tEncodingProto3), ptr(int64(1))
				b.add("shard", "templateCreateShardQuery", b.in.SaveIfNotExists(e))
			}},
		{name: "CreateWorkflowExecution BrandNew: run A", file: fileMS, batch: true, want: true,
			app:   func(sh int32) (bool, []map[string]any, error) { return app.createWorkflowExecution(sh, createA) },
			typed: func(b *temporalBuild, sh int32) { b.createWorkflowExecution(sh, createA) }},
		{name: "CreateWorkflowExecution BrandNew: run B while A is current", file: fileMS, batch: true,
			app:      func(sh int32) (bool, []map[string]any, error) { return app.createWorkflowExecution(sh, createB) },
			typed:    func(b *temporalBuild, sh int32) { b.createWorkflowExecution(sh, createB) },
			conflict: "current", check: currentIs(runA), decide: createDecide(createB)},
		{name: "AddHistoryTasks: two tasks under range 1", file: fileTasks, batch: true, want: true,
			app:   func(sh int32) (bool, []map[string]any, error) { return app.addHistoryTasks(sh, 1, addTasks) },
			typed: func(b *temporalBuild, sh int32) { b.tasks(sh, addTasks); b.fence(sh, 1) }},
		{name: "UpdateWorkflowExecution UpdateCurrent: A's mutation to version 2, completing it", file: fileMS, batch: true, want: true,
			app:   func(sh int32) (bool, []map[string]any, error) { return app.updateWorkflowExecution(sh, 1, &mutA2) },
			typed: func(b *temporalBuild, sh int32) { b.updateWorkflowExecution(sh, 1, &mutA2) }},
		{name: "UpdateWorkflowExecution: the same mutation again (stale db_record_version)", file: fileMS, batch: true,
			app:      func(sh int32) (bool, []map[string]any, error) { return app.updateWorkflowExecution(sh, 1, &mutA2) },
			typed:    func(b *temporalBuild, sh int32) { b.updateWorkflowExecution(sh, 1, &mutA2) },
			conflict: "execution", check: versionIs(2), decide: updateDecide(1, &mutA2)},
		{name: "UpdateShard: range 1 to 2", file: fileShard, want: true,
			app: func(sh int32) (bool, []map[string]any, error) {
				return app.updateShard(sh, 2, 1, temporalBytes("shard info r2"))
			},
			typed: func(b *temporalBuild, sh int32) {
				b.add("shard", "templateUpdateShardQuery", b.in.Patch(temporalShardRow(sh), kstore.Set(b.f.shard, temporalBytes("shard info r2")).
					And(kstore.Set(b.f.shardEnc, ptr(tEncodingProto3))).And(kstore.Set(b.f.rangeID, ptr(int64(2)))).If(kstore.Eq(b.f.rangeID, ptr(int64(1))))))
			}},
		{name: "UpdateShard: a stale owner's range 1 to 3", file: fileShard,
			app: func(sh int32) (bool, []map[string]any, error) {
				return app.updateShard(sh, 3, 1, temporalBytes("shard info r3"))
			},
			typed: func(b *temporalBuild, sh int32) {
				b.add("shard", "templateUpdateShardQuery", b.in.Patch(temporalShardRow(sh), kstore.Set(b.f.shard, temporalBytes("shard info r3")).
					And(kstore.Set(b.f.shardEnc, ptr(tEncodingProto3))).And(kstore.Set(b.f.rangeID, ptr(int64(3)))).If(kstore.Eq(b.f.rangeID, ptr(int64(1))))))
			},
			conflict: "shard", check: rangeIs(2),
			decide: func(recs []temporalRecord) string { // UpdateShard: ShardOwnershipLostError with the row's columns
				if len(recs) == 0 {
					return "ShardOwnershipLostError: no row"
				}
				return fmt.Sprintf("ShardOwnershipLostError: Failed to update shard.  previous_range_id: 1, columns: (range_id=%d)", recs[0].RangeID)
			}},
		{name: "UpdateWorkflowExecution: A's next mutation under the stale range 1", file: fileMS, batch: true,
			app:      func(sh int32) (bool, []map[string]any, error) { return app.updateWorkflowExecution(sh, 1, &mutA3) },
			typed:    func(b *temporalBuild, sh int32) { b.updateWorkflowExecution(sh, 1, &mutA3) },
			conflict: "fence", check: rangeIs(2), decide: updateDecide(1, &mutA3)},
		{name: "AddHistoryTasks: under the stale range 1", file: fileTasks, batch: true,
			app:      func(sh int32) (bool, []map[string]any, error) { return app.addHistoryTasks(sh, 1, staleTasks) },
			typed:    func(b *temporalBuild, sh int32) { b.tasks(sh, staleTasks); b.fence(sh, 1) },
			conflict: "fence", check: rangeIs(2), decide: addTasksDecide(1)},
		{name: "SetWorkflowExecution: A reset to version 3 under range 2", file: fileMS, batch: true, want: true,
			app:   func(sh int32) (bool, []map[string]any, error) { return app.setWorkflowExecution(sh, 2, &resetA) },
			typed: func(b *temporalBuild, sh int32) { b.setWorkflowExecution(sh, 2, &resetA) }},
		{name: "CreateWorkflowExecution UpdateCurrent: run C after A completed", file: fileMS, batch: true, want: true,
			app:   func(sh int32) (bool, []map[string]any, error) { return app.createWorkflowExecution(sh, createC) },
			typed: func(b *temporalBuild, sh int32) { b.createWorkflowExecution(sh, createC) }},
		{name: "CreateWorkflowExecution UpdateCurrent: run D still naming A (C is current)", file: fileMS, batch: true,
			app:      func(sh int32) (bool, []map[string]any, error) { return app.createWorkflowExecution(sh, createD) },
			typed:    func(b *temporalBuild, sh int32) { b.createWorkflowExecution(sh, createD) },
			conflict: "current", check: currentIs(runC), decide: createDecide(createD)},
		{name: "DeleteCurrentWorkflowExecution: naming A (C is current)", file: fileMS,
			app: func(sh int32) (bool, []map[string]any, error) { return app.deleteCurrent(sh, ns, wfID, runA) },
			typed: func(b *temporalBuild, sh int32) {
				b.add("current", "templateDeleteWorkflowExecutionCurrentRowQuery", b.in.DeleteIf(temporalCurrentRow(sh, ns, wfID),
					kstore.Eq(b.f.currentRunID, ptr(uuid.MustParse(runA)))))
			},
			conflict: "current", check: currentIs(runC)},
		{name: "DeleteCurrentWorkflowExecution: naming C", file: fileMS, want: true,
			app: func(sh int32) (bool, []map[string]any, error) { return app.deleteCurrent(sh, ns, wfID, runC) },
			typed: func(b *temporalBuild, sh int32) {
				b.add("current", "templateDeleteWorkflowExecutionCurrentRowQuery", b.in.DeleteIf(temporalCurrentRow(sh, ns, wfID),
					kstore.Eq(b.f.currentRunID, ptr(uuid.MustParse(runC)))))
			}},
	}

	// Temporal's reads, run on both partitions after every case.
	reads := []struct {
		name, cql string
		args      func(sh int32) []any
	}{
		{"GetShard", tcqlGetShardQuery, func(sh int32) []any {
			return []any{sh, tRowTypeShard, tRowTypeShardNamespaceID, tRowTypeShardWorkflowID, tRowTypeShardRunID, tDefaultVisibilityTimestamp, tRowTypeShardTaskID}
		}},
		{"GetCurrentExecution", tcqlGetCurrentExecutionQuery, func(sh int32) []any {
			return []any{sh, tRowTypeExecution, ns, wfID, tPermanentRunID, tDefaultVisibilityTimestamp, tRowTypeExecutionTaskID}
		}},
		{"GetTransferTasks", tcqlGetTransferTasksQuery, func(sh int32) []any {
			return []any{sh, tRowTypeTransferTask, tRowTypeTransferNamespaceID, tRowTypeTransferWorkflowID, tRowTypeTransferRunID, tDefaultVisibilityTimestamp, int64(0), int64(1) << 40}
		}},
		{"GetVisibilityTasks", tcqlGetVisibilityTasksQuery, func(sh int32) []any {
			return []any{sh, tRowTypeVisibilityTask, tRowTypeVisibilityNamespaceID, tRowTypeVisibilityWorkflowID, tRowTypeVisibilityRunID, tDefaultVisibilityTimestamp, int64(0), int64(1) << 40}
		}},
		{"GetTimerTasks", tcqlGetTimerTasksQuery, func(sh int32) []any {
			return []any{sh, tRowTypeTimerTask, tRowTypeTimerNamespaceID, tRowTypeTimerWorkflowID, tRowTypeTimerRunID, int64(0), fire.AddDate(1, 0, 0).UnixMilli()}
		}},
	}
	for _, run := range []string{runA, runB, runC, runD} {
		reads = append(reads, struct {
			name, cql string
			args      func(sh int32) []any
		}{"GetWorkflowExecution " + run[:2], tcqlGetWorkflowExecutionQuery, func(sh int32) []any {
			return []any{sh, tRowTypeExecution, ns, wfID, run, tDefaultVisibilityTimestamp, tRowTypeExecutionTaskID}
		}})
	}
	var scalarTTLs []string
	for n, col := range cols {
		if col.kind == "regular" && !strings.Contains(col.typ, "<") {
			scalarTTLs = append(scalarTTLs, "TTL("+n+")")
		}
	}
	sort.Strings(scalarTTLs)

	// 4. The run.
	var results []*temporalResult
	for _, c := range cases {
		r := &temporalResult{c: c}
		results = append(results, r)
		applied, recs, err := c.app(shardJ)
		if err != nil {
			r.fail("Temporal's statements failed: %v", err)
		}
		r.appApplied = applied
		r.typed = typed.run(ctx, c.typed, shardK)
		tr := r.typed
		r.typeOK = tr.err == nil
		switch {
		case temporalRefused(tr.err, tr.sent):
			steps := make([]string, len(tr.steps))
			for i, st := range tr.steps {
				steps[i] = fmt.Sprintf("step %d = %s", i, st)
			}
			r.fail("kandra refused the literal unit (%s): %v", strings.Join(steps, ", "), tr.err)
		case tr.err != nil:
			r.fail("the typed unit failed: %v", tr.err)
		}
		// The outcome.
		r.outcomeOK = err == nil && tr.err == nil
		if applied != tr.applied || applied != c.want {
			r.outcomeOK = false
			r.fail("applied: Temporal's %v, the unit's %v, want %v", applied, tr.applied, c.want)
		}
		if !applied && !tr.applied && err == nil && tr.err == nil {
			var appRecs, unitRecs []temporalRecord
			for _, m := range recs {
				if rec, ok := temporalRecordOfMap(m, c.batch); ok {
					appRecs = append(appRecs, rec)
				}
			}
			var conflicting *temporalExecution
			for _, st := range tr.conds {
				out := st.step.Outcome()
				if out.Applied {
					r.fail("step %s (%s): Outcome.Applied in a unit that did not apply", st.role, st.template)
				}
				if out.Exists && out.Current != nil {
					unitRecs = append(unitRecs, temporalRecordOf(out.Current, c.batch))
					if st.role == c.conflict {
						conflicting = out.Current
					}
				}
			}
			sortRecords := func(rs []temporalRecord) []string {
				out := make([]string, len(rs))
				for i, x := range rs {
					out[i] = fmt.Sprintf("%+v", x)
				}
				sort.Strings(out)
				return out
			}
			if a, u := sortRecords(appRecs), sortRecords(unitRecs); !slices.Equal(a, u) {
				r.outcomeOK = false
				r.fail("the rows returned differ:\n    Temporal's records: %v\n    the steps' Outcomes: %v", a, u)
			}
			if c.decide != nil {
				byKey := func(rs []temporalRecord) []temporalRecord {
					out := slices.Clone(rs)
					sort.SliceStable(out, func(i, j int) bool { return fmt.Sprintf("%+v", out[i]) < fmt.Sprintf("%+v", out[j]) })
					return out
				}
				da, du := c.decide(byKey(appRecs)), c.decide(byKey(unitRecs))
				if da != du {
					r.outcomeOK = false
					r.fail("Temporal's error: from its records %q, from the Outcomes %q", da, du)
				} else {
					t.Logf("%s: Temporal decides %q on both", c.name, da)
				}
			}
			switch {
			case conflicting == nil:
				r.outcomeOK = false
				r.fail("the %s step's Outcome holds no row (Temporal's records: %d)", c.conflict, len(appRecs))
			case c.check(conflicting) != "":
				r.outcomeOK = false
				r.fail("the %s step's Outcome.Current: %s", c.conflict, c.check(conflicting))
			}
		}
		// The rows: both partitions whole, then Temporal's reads.
		r.rowsOK = true
		rowFail := func(format string, args ...any) {
			r.rowsOK = false
			r.fail(format, args...)
		}
		rj, errJ := jaegerRows(js.Query("SELECT * FROM executions WHERE shard_id = ?", shardJ))
		rk, errK := jaegerRows(js.Query("SELECT * FROM executions WHERE shard_id = ?", shardK))
		switch {
		case errJ != nil || errK != nil:
			rowFail("reading the partitions: %v, %v", errJ, errK)
		case len(rj) != len(rk):
			rowFail("partition rows: Temporal's %d, kandra's %d", len(rj), len(rk))
		default:
			r.rows = len(rj)
			// A control: the comparison sees the one column that differs.
			if len(rj) > 0 && len(diffCells(rj[0], rk[0])) != 1 {
				rowFail("the partitions' first rows differ in %v, want shard_id alone", diffCells(rj[0], rk[0]))
			}
			for i := range rj {
				for _, d := range diffCells(rj[i], rk[i], "shard_id") {
					rowFail("row %d (type %s, run %s, task %s): %s", i, rj[i]["type"], rj[i]["run_id"], rj[i]["task_id"], d)
				}
			}
		}
		for _, sh := range []int32{shardJ, shardK} {
			ttls, err := jaegerRows(js.Query("SELECT "+strings.Join(scalarTTLs, ", ")+" FROM executions WHERE shard_id = ?", sh))
			if err != nil {
				rowFail("TTLs: %v", err)
			}
			for _, row := range ttls {
				for n, cell := range row {
					if !cell.null {
						rowFail("shard %d: %s = %s, want none", sh, n, cell)
					}
				}
			}
		}
		for _, rd := range reads {
			aj, errJ := jaegerRows(js.Query(rd.cql, rd.args(shardJ)...))
			ak, errK := jaegerRows(js.Query(rd.cql, rd.args(shardK)...))
			if errJ != nil || errK != nil || len(aj) != len(ak) {
				rowFail("Temporal's %s: %d rows (%v) against %d (%v)", rd.name, len(aj), errJ, len(ak), errK)
				continue
			}
			for i := range aj {
				for _, d := range diffCells(aj[i], ak[i]) {
					rowFail("Temporal's %s, row %d: %s", rd.name, i, d)
				}
			}
		}
	}

	// 5. The report. Both partitions end with 12 rows: the shard row, A's
	// and C's execution rows, 9 task rows (B's and D's rows, the stale
	// writes' tasks and the deleted current row are not there).
	if last := results[len(results)-1]; last.rows != 12 {
		t.Errorf("the partitions end with %d rows, want 12", last.rows)
	}
	var nBatch, nTyped, nOutcome, nRows, nSingle, nSingleSame int
	for _, r := range results {
		c, tr := r.c, r.typed
		ok := r.typeOK && r.outcomeOK && r.rowsOK
		if c.batch {
			nBatch++
			if r.typeOK {
				nTyped++
			}
			if r.typeOK && r.outcomeOK {
				nOutcome++
			}
			if r.typeOK && r.rowsOK {
				nRows++
			}
		} else {
			nSingle++
			if ok {
				nSingleSame++
			}
		}
		t.Logf("%s (%s): Temporal applied=%v, unit applied=%v, partition rows %d, %d step(s): %s", c.name, c.file, r.appApplied, tr.applied, r.rows, len(tr.steps), strings.Join(tr.steps, ", "))
		for _, s := range tr.sent {
			t.Logf("  kandra sent: %s", temporalShort(s))
		}
		for _, p := range r.problems {
			t.Errorf("%s: %s", c.name, p)
		}
	}
	line := fmt.Sprintf("real-server: temporal batches=%d typed=%d same-outcome=%d same-rows=%d single-statements=%d same=%d",
		nBatch, nTyped, nOutcome, nRows, nSingle, nSingleSame)
	t.Log(line)
	fmt.Println(line)
	if nTyped != nBatch || nOutcome != nBatch || nRows != nBatch || nSingleSame != nSingle {
		t.Errorf("of Temporal's %d batches (%s), %d ran typed, %d with the same outcome, %d with the same rows; %d of %d single statements the same",
			nBatch, temporalCommit, nTyped, nOutcome, nRows, nSingleSame, nSingle)
	}
}

// temporalColumnList matches an INSERT's column list and its markers.
var temporalColumnList = regexp.MustCompile(`\(([a-z_, ]+)\) VALUES \(([?, ]+)\)`)

// temporalShort abbreviates the statements kandra sent for the log: an
// INSERT's column list (every column of the table, the null ones sent
// unset) as its count.
func temporalShort(stmt string) string {
	return temporalColumnList.ReplaceAllStringFunc(stmt, func(m string) string {
		n := strings.Count(temporalColumnList.FindStringSubmatch(m)[1], ",") + 1
		return fmt.Sprintf("(%d columns) VALUES (...)", n)
	})
}

// deref is *p, or the zero value for nil, for messages.
func deref[V any](p *V) V {
	var zero V
	if p == nil {
		return zero
	}
	return *p
}
