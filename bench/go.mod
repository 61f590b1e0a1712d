module github.com/convoapi/convo-go/bench

go 1.25.0

require (
	github.com/convoapi/convo-go v0.1.0
	github.com/convoapi/convo-go/redislimit v0.0.0-00010101000000-000000000000
	github.com/redis/go-redis/v9 v9.22.0
	github.com/stretchr/testify v1.12.1
	golang.org/x/time v0.15.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	go.uber.org/atomic v1.11.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.30.0 // indirect
)

replace github.com/convoapi/convo-go => ../

replace github.com/convoapi/convo-go/redislimit => ../redislimit
