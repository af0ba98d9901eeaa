module github.com/kandra-go/kandra/driver/gocqlv2

go 1.23

replace github.com/kandra-go/kandra => ../..

require (
	github.com/apache/cassandra-gocql-driver/v2 v2.1.2
	github.com/google/uuid v1.6.0
	github.com/kandra-go/kandra v0.0.0-00010101000000-000000000000
)

require gopkg.in/inf.v0 v0.9.1 // indirect
