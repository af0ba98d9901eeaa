package tokenscan

import _ "github.com/kandra-go/kandra/internal/rapidseed" // property tests draw from a fixed seed
