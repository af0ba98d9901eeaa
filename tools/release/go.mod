module github.com/kandra-go/kandra/tools/release

go 1.23.0

require golang.org/x/mod v0.24.0
