module github.com/ptxkit/ptxkit

go 1.26
