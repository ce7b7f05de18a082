module github.com/isagi-lab/isagi

go 1.26

require (
	golang.org/x/sys v0.38.0
	golang.org/x/text v0.31.0
)
