module example.com/price

go 1.22
