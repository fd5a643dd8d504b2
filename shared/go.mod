module demiurge.dev/shared

go 1.26.0

require (
	github.com/elastic/go-seccomp-bpf v1.6.0
	github.com/hashicorp/go-plugin v1.8.0
	github.com/landlock-lsm/go-landlock v0.11.2
	go.yaml.in/yaml/v3 v3.0.4
	google.golang.org/grpc v1.80.0
	google.golang.org/protobuf v1.36.11
)

require kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect

require (
	github.com/fatih/color v1.13.0 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/hashicorp/go-hclog v1.6.3 // indirect
	github.com/hashicorp/yamux v0.1.2 // indirect
	github.com/mattn/go-colorable v0.1.12 // indirect
	github.com/mattn/go-isatty v0.0.17 // indirect
	github.com/oklog/run v1.1.0 // indirect
	golang.org/x/net v0.49.0
	golang.org/x/sys v0.49.0
	golang.org/x/text v0.33.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260120221211-b8f7ae30c516 // indirect
)
