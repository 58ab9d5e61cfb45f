module example.com/goconc

go 1.22
