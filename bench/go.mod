module github.com/convoapi/convo-go/bench

go 1.25.0

require (
	github.com/convoapi/convo-go v0.1.0
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect

require (
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	golang.org/x/time v0.15.0
)

replace github.com/convoapi/convo-go => ../
