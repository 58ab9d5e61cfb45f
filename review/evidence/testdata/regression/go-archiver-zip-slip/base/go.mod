module example.com/archiver

go 1.24
