package kandra

import "time"

// TimestampNow returns the current time as a CQL write timestamp:
// microseconds since the Unix epoch, the unit Cassandra and ScyllaDB use for
// USING TIMESTAMP and the protocol's default timestamp.
//
// It keeps the clock's real microsecond precision (a millisecond clock
// multiplied by 1000 would not), so two writes within one
// millisecond get different timestamps and the later one wins.
func TimestampNow() int64 { return time.Now().UnixMicro() }

// TimestampOf returns t as a CQL write timestamp in microseconds since the
// Unix epoch, keeping t's sub-millisecond digits (t.UnixMicro).
//
// Use it when replaying or reprocessing events, with the time the event
// happened: a cell keeps the value with the highest write timestamp, so the
// row ends up reflecting the last event (last-event-wins) rather than the
// last write the server processed (last-write-wins), whatever order the
// replay runs in.
//
// The servers reject custom timestamps on counter updates and on
// conditional (lightweight transaction) statements, and ScyllaDB by default
// rejects timestamps more than three days in the future.
func TimestampOf(t time.Time) int64 { return t.UnixMicro() }
