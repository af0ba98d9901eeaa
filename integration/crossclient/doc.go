// Package crossclient proves kandra's values against an independent
// client on a real node: what kandra writes through each adapter
// (kgocql on gocql v1.7.0, kgocqlv2 on the Apache driver v2) is what the
// Apache Cassandra Python driver (cassandra-driver 3.30.1) reads, and what
// that client writes is what kandra reads, for every Go type kandra maps.
// Its test, TestCrossClientValues, runs crossclient.py with the Python of
// $KANDRA_PYTHON (prepared by scripts/pyclient.sh):
//
//	scripts/cassandra.sh start
//	export KANDRA_PYTHON=$(bash scripts/pyclient.sh)
//	cd integration && KANDRA_REQUIRE_CASSANDRA=1 go test -count=1 -v ./crossclient
//
// The package holds only that test (crossclient_test.go documents the
// canonical forms and the rules compared); it lives in the integration
// module so that the root module ships no Python.
package crossclient
