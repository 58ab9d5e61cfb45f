module example.com/caddycmd

go 1.24
