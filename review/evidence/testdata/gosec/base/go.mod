module example.com/gosecdemo

go 1.22
