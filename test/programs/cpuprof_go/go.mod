module cpuprof_go

go 1.23
