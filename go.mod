module github.com/synapse-lang/synapse-isolation

go 1.26.8

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7
	github.com/urfave/cli/v2 v2.27.7
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5
	golang.org/x/sys v0.42.0
	gotest.tools/v3 v3.5.2
)

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
)
