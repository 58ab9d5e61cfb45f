module example.com/lock

go 1.22
