module example.com/gogs

go 1.24
