// SPDX-License-Identifier: GPL-2.0
/*
 * Host front end for panic/qr.c, for tests/host/qr/test_qr.py.
 *
 *   qrgen [-s SCALE] [-b BORDER] [-w WORK_LEN] [-o OUT.pgm] < data
 *	encodes stdin and writes a binary PGM (P5) with a light border of
 *	BORDER modules (default 4) and SCALE pixels per module (default 4);
 *	prints "size N version V" on stdout. Exits 2 with the errno name on
 *	stderr if the encoder fails. The work and module buffers are exactly
 *	as long as the encoder asks for, with guard bytes after them that
 *	must stay untouched.
 *   qrgen -c
 *	prints "version max_bytes work_len" for every version.
 *   qrgen -t
 *	checks the argument errors and helpers; prints "ok" or fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "panic/qr.h"

#define GUARD 64
#define GUARD_BYTE 0xa5

static const char *errname(int err)
{
	switch (err) {
	case -E2BIG:
		return "E2BIG";
	case -EINVAL:
		return "EINVAL";
	case -ENOSPC:
		return "ENOSPC";
	default:
		return "unknown";
	}
}

static u8 *guarded(size_t len)
{
	u8 *p = malloc(len + GUARD);

	if (!p) {
		perror("malloc");
		exit(1);
	}
	memset(p, 0x5a, len);
	memset(p + len, GUARD_BYTE, GUARD);
	return p;
}

static void check_guard(const u8 *p, size_t len, const char *what)
{
	size_t i;

	for (i = 0; i < GUARD; i++) {
		if (p[len + i] != GUARD_BYTE) {
			fprintf(stderr, "qrgen: %s overrun at +%zu\n", what, i);
			exit(3);
		}
	}
}

static int selftest(void)
{
	static u8 work[KMSVT_QR_WORK_LEN], mods[KMSVT_QR_MODULES_MAX];
	static u8 data[KMSVT_QR_MAX_BYTES + 1];
	int fails = 0;

#define EXPECT(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "qrgen: check failed: %s\n", #cond); \
		fails++; \
	} \
} while (0)

	EXPECT(sizeof(u8) == 1 && sizeof(u16) == 2 && sizeof(u32) == 4);
	EXPECT(kmsvt_qr_modules_len(177) == KMSVT_QR_MODULES_MAX);
	EXPECT(kmsvt_qr_modules_len(21) == 56);
	EXPECT(kmsvt_qr_work_len(40) == KMSVT_QR_WORK_LEN);
	EXPECT(kmsvt_qr_max_bytes(40) == KMSVT_QR_MAX_BYTES);
	EXPECT(kmsvt_qr_max_bytes(0) == 0);
	EXPECT(kmsvt_qr_max_bytes(41) == 0);
	EXPECT(kmsvt_qr_work_len(0) == 0);
	EXPECT(kmsvt_qr_version_for(0) == 1);
	EXPECT(kmsvt_qr_version_for(17) == 1);
	EXPECT(kmsvt_qr_version_for(18) == 2);
	EXPECT(kmsvt_qr_version_for(2953) == 40);
	EXPECT(kmsvt_qr_version_for(2954) == -E2BIG);
	EXPECT(kmsvt_qr_encode(NULL, 0, work, sizeof(work), mods, sizeof(mods)) == 21);
	EXPECT(kmsvt_qr_encode(NULL, 1, work, sizeof(work), mods, sizeof(mods)) == -EINVAL);
	EXPECT(kmsvt_qr_encode(data, 1, NULL, sizeof(work), mods, sizeof(mods)) == -EINVAL);
	EXPECT(kmsvt_qr_encode(data, 1, work, sizeof(work), NULL, sizeof(mods)) == -EINVAL);
	EXPECT(kmsvt_qr_encode(data, 2954, work, sizeof(work), mods, sizeof(mods)) == -E2BIG);
	EXPECT(kmsvt_qr_encode(data, 2953, work, sizeof(work), mods, sizeof(mods)) == 177);
	EXPECT(kmsvt_qr_encode(data, 2953, work, sizeof(work) - 1, mods, sizeof(mods)) == -ENOSPC);
	EXPECT(kmsvt_qr_encode(data, 2953, work, sizeof(work), mods, sizeof(mods) - 1) == -ENOSPC);
	EXPECT(kmsvt_qr_encode(data, 17, work, kmsvt_qr_work_len(1), mods, 56) == 21);
	EXPECT(kmsvt_qr_encode(data, 17, work, kmsvt_qr_work_len(1) - 1, mods, 56) == -ENOSPC);
	EXPECT(kmsvt_qr_encode(data, 17, work, kmsvt_qr_work_len(1), mods, 55) == -ENOSPC);
	EXPECT(!kmsvt_qr_module(mods, 21, -1, 0));
	EXPECT(!kmsvt_qr_module(mods, 21, 0, 21));
	EXPECT(kmsvt_qr_module(mods, 21, 0, 0));	/* finder corner is dark */
	EXPECT(!kmsvt_qr_module(mods, 21, 7, 0));	/* separator is light */
	EXPECT(kmsvt_qr_fit_version(28, 1) == 0);
	EXPECT(kmsvt_qr_fit_version(29, 1) == 1);
	EXPECT(kmsvt_qr_fit_version(480, 3) == 33);
	EXPECT(kmsvt_qr_fit_version(480, 4) == 23);
	EXPECT(kmsvt_qr_fit_version(10000, 1) == 40);
	EXPECT(kmsvt_qr_fit_version(100, 0) == 0);
	if (fails)
		return 1;
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	static u8 in[1 << 16];
	size_t len = 0, n, work_len, mod_len;
	long scale = 4, border = 4, want_work = -1;
	const char *out = NULL;
	u8 *work, *mods;
	FILE *f;
	int opt, size, v, x, y, px;

	while ((opt = getopt(argc, argv, "s:b:w:o:ct")) != -1) {
		switch (opt) {
		case 's':
			scale = strtol(optarg, NULL, 0);
			break;
		case 'b':
			border = strtol(optarg, NULL, 0);
			break;
		case 'w':
			want_work = strtol(optarg, NULL, 0);
			break;
		case 'o':
			out = optarg;
			break;
		case 'c':
			for (v = 1; v <= KMSVT_QR_MAX_VERSION; v++)
				printf("%d %zu %zu\n", v, kmsvt_qr_max_bytes(v),
				       kmsvt_qr_work_len(v));
			return 0;
		case 't':
			return selftest();
		default:
			fprintf(stderr, "usage: %s [-s scale] [-b border] [-w work_len] %s\n",
				argv[0], "[-o out.pgm] | -c | -t");
			return 1;
		}
	}
	if (scale < 1 || border < 0) {
		fprintf(stderr, "qrgen: bad scale or border\n");
		return 1;
	}
	while ((n = fread(in + len, 1, sizeof(in) - len, stdin)) > 0)
		len += n;

	v = kmsvt_qr_version_for(len);
	work_len = v > 0 ? kmsvt_qr_work_len(v) : KMSVT_QR_WORK_LEN;
	mod_len = v > 0 ? kmsvt_qr_modules_len(KMSVT_QR_SIZE(v)) : KMSVT_QR_MODULES_MAX;
	if (want_work >= 0)
		work_len = want_work;
	work = guarded(work_len);
	mods = guarded(mod_len);
	size = kmsvt_qr_encode(in, len, work, work_len, mods, mod_len);
	check_guard(work, work_len, "work");
	check_guard(mods, mod_len, "modules");
	if (size < 0) {
		fprintf(stderr, "qrgen: %s\n", errname(size));
		return 2;
	}
	if (size != KMSVT_QR_SIZE(v)) {
		fprintf(stderr, "qrgen: size %d for version %d\n", size, v);
		return 3;
	}
	printf("size %d version %d\n", size, v);
	if (!out)
		return 0;

	f = fopen(out, "wb");
	if (!f) {
		perror(out);
		return 1;
	}
	px = (size + 2 * border) * scale;
	fprintf(f, "P5\n%d %d\n255\n", px, px);
	for (y = 0; y < px; y++) {
		for (x = 0; x < px; x++) {
			int mx = x / scale - border, my = y / scale - border;

			fputc(kmsvt_qr_module(mods, size, mx, my) ? 0 : 255, f);
		}
	}
	if (fclose(f)) {
		perror(out);
		return 1;
	}
	free(work);
	free(mods);
	return 0;
}
