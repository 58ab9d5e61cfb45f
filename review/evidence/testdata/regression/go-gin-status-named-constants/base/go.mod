module example.com/gin

go 1.24
