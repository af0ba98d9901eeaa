module github.com/kandra-go/kandra/examples/todoapp

// otelkandra's OpenTelemetry v1.47.0 needs Go 1.26.
go 1.26.0

require (
	github.com/gocql/gocql v1.7.0
	github.com/google/uuid v1.6.0
	github.com/kandra-go/kandra v0.1.0
	github.com/kandra-go/kandra/driver/kgocql v0.1.0
	github.com/kandra-go/kandra/otelkandra v0.1.0
	go.opentelemetry.io/otel/exporters/stdout/stdouttrace v1.47.0
	go.opentelemetry.io/otel/sdk v1.47.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/golang/snappy v0.0.3 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.47.0 // indirect
	go.opentelemetry.io/otel/metric v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)
