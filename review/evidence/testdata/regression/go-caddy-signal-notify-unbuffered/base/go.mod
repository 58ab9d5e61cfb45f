module example.com/caddy

go 1.24
