// Every GPU example compiles through ext-gpu-pipeline to an HSACO that holds
// its kernel symbol for gfx90a and gfx942 (no ptxas needed).
