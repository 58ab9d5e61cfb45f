module example.com/caddyconfig

go 1.24
