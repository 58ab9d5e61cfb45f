module example.com/getter

go 1.24
