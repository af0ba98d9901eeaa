// Package nodetest proves otelkandra on a real node, through both
// adapters (TestOTelOnNode). It is a module of its own, never published,
// so that otelkandra's own go.mod does not name the drivers.
package nodetest
