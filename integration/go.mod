module github.com/kandra-go/kandra/integration

go 1.23

require (
	github.com/apache/cassandra-gocql-driver/v2 v2.1.2
	github.com/gocql/gocql v1.7.0
	github.com/google/uuid v1.6.0
	github.com/kandra-go/kandra v0.1.0
	github.com/kandra-go/kandra/driver/kgocql v0.1.0
	github.com/kandra-go/kandra/driver/kgocqlv2 v0.1.0
	github.com/stretchr/testify v1.11.1
	pgregory.net/rapid v1.3.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/golang/snappy v0.0.3 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
