module example.com/weak

go 1.22
