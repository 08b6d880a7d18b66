/*
 * The work of testdata/emu/store_bench.ptx as a plain C loop, for
 * scripts/bench-native.sh: GRID CTAs of BLOCK threads, ROUNDS rounds.
 * Per thread and round: the hash, a 4-byte store to out32, a 16-byte
 * store to out128, the same two stores to the CTA's shared arrays, then a
 * scalar and a vector load of the next thread's shared slots into the
 * accumulator; at the end each thread stores its accumulator to out32.
 * The buffers are zeroed memory of the kernel's sizes (calloc, as the
 * emulator's fresh device memory). With an output directory it writes
 * arg0.bin and arg1.bin there, byte for byte what `ptxkit run --out`
 * writes for the same launch.
 *
 * Usage: store_bench GRID BLOCK ROUNDS [OUTDIR]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put32(unsigned char *p, uint32_t v) {
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static int save(const char *dir, const char *name, const unsigned char *b, size_t n) {
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv) {
	if (argc < 4) {
		fprintf(stderr, "usage: store_bench GRID BLOCK ROUNDS [OUTDIR]\n");
		return 2;
	}
	long grid = atol(argv[1]), block = atol(argv[2]), rounds = atol(argv[3]);
	if (grid <= 0 || block <= 0 || block > 256 || (block & (block - 1)) != 0 || rounds < 0) {
		fprintf(stderr, "store_bench: GRID > 0, BLOCK a power of two up to 256, ROUNDS >= 0\n");
		return 2;
	}
	size_t n = (size_t)grid * (size_t)block;
	unsigned char *out32 = calloc(n, 4), *out128 = calloc(n, 16);
	uint32_t h[256], acc[256], sm32[256], sm128[256][4];
	if (!out32 || !out128) {
		perror("store_bench");
		return 1;
	}
	for (long c = 0; c < grid; c++) {
		for (long t = 0; t < block; t++) {
			h[t] = (uint32_t)(c * block + t);
			acc[t] = 0;
		}
		for (long r = 0; r < rounds; r++) {
			for (long t = 0; t < block; t++) {
				uint32_t x = h[t];
				x ^= x >> 16;
				x *= 73244475u;
				x ^= x >> 16;
				x += (uint32_t)r;
				h[t] = x;
				size_t g = (size_t)(c * block + t);
				put32(out32 + 4 * g, x);
				for (int i = 0; i < 4; i++) {
					put32(out128 + 16 * g + 4 * (size_t)i, x + (uint32_t)i);
					sm128[t][i] = x + (uint32_t)i;
				}
				sm32[t] = x;
			}
			for (long t = 0; t < block; t++) {
				long nb = (t + 1) & (block - 1);
				acc[t] += sm32[nb] ^ sm128[nb][3];
			}
		}
		for (long t = 0; t < block; t++)
			put32(out32 + 4 * (size_t)(c * block + t), acc[t]);
	}
	if (argc > 4 && (save(argv[4], "arg0.bin", out32, 4 * n) || save(argv[4], "arg1.bin", out128, 16 * n)))
		return 1;
	free(out32);
	free(out128);
	return 0;
}
