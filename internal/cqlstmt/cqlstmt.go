// Package cqlstmt classifies CQL statements as the driver adapters need
// it, once for both: the adapter core exports it (adapter.IsConditional).
package cqlstmt

import "strings"

// IsConditional reports a lightweight transaction: an INSERT, UPDATE or
// DELETE with an IF clause (the word IF, in any case). The adapters run
// such a statement at serial consistency and read its [applied] column.
// Other statements with IF (CREATE ... IF NOT EXISTS) are not
// transactions.
func IsConditional(stmt string) bool {
	u := strings.ToUpper(strings.TrimSpace(stmt))
	if !strings.HasPrefix(u, "INSERT") && !strings.HasPrefix(u, "UPDATE") && !strings.HasPrefix(u, "DELETE") {
		return false
	}
	for _, f := range strings.Fields(u) {
		if f == "IF" {
			return true
		}
	}
	return false
}
