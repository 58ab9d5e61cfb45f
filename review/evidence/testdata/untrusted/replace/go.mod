module example.com/shop

go 1.22

require example.com/evil v0.0.0

replace example.com/evil => ../../../../../../../../etc
