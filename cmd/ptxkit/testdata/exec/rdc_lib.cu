__device__ int g2 = 7;
#include <cstdio>
__device__ int f2(int x) { if (x == 0) printf("f2 from unit 2\n"); return 3 * x; }
