module example.com/partial

go 1.22
