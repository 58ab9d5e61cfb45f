module example.com/unclosed

go 1.22
