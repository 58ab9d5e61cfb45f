module example.com/linters

go 1.22
