module demiurge.dev/plugins/authored

go 1.26

replace demiurge.dev/shared => ../../shared

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	go.yaml.in/yaml/v3 v3.0.4 // indirect
	golang.org/x/text v0.14.0 // indirect
)
