module example.com/prometheus

go 1.24
