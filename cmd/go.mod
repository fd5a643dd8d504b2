module demiurge.dev/cmd

go 1.26.0

require (
	demiurge.dev/catalog v0.0.0
	demiurge.dev/host v0.0.0
	demiurge.dev/shared v0.0.0
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/rogpeppe/go-internal v1.14.1 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/urfave/cli/v2 v2.27.7 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/term v0.48.0 // indirect
)

replace demiurge.dev/shared => ../shared

replace demiurge.dev/catalog => ../catalog

replace demiurge.dev/host => ../host
