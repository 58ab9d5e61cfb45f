module example.com/googet

go 1.24
