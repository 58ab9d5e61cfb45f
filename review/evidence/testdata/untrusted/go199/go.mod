module example.com/shop

go 1.99

toolchain go1.99.1

godebug panicnil=1
