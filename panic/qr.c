// SPDX-License-Identifier: GPL-2.0
/*
 * QR code encoder for the panic screen, after ISO/IEC 18004:2015.
 *
 * One byte-mode segment at error correction level L, the smallest version
 * that fits, the mask with the lowest penalty (rules N1..N4 of section
 * 7.8.3). See qr.h for the interface and the constraints it keeps.
 *
 * Work buffer layout for a symbol of version v with n codewords:
 *
 *   [0, kmsvt_qr_modules_len(size))  bitmap: 1 = function module (not data)
 *   [.., + n)                        data codewords, then each block's ECC
 *   [.., + n)                        the same codewords, interleaved
 */
#include "qr.h"

/* Error correction codewords per block at level L, by version (table 9). */
static const u8 qr_ecc_per_block[KMSVT_QR_MAX_VERSION + 1] = {
	0,  7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
	28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
};

/* Error correction blocks at level L, by version (table 9). */
static const u8 qr_num_blocks[KMSVT_QR_MAX_VERSION + 1] = {
	0,  1,  1,  1,  1,  1,  2,  2,  2,  2,  4,  4,  4,  4,  4,  6,  6,  6,  6,  7,  8,
	8,  9,  9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25,
};

#define QR_ECC_MAX		30	/* most ECC codewords in one block */
#define QR_ALIGN_MAX		7	/* most alignment pattern coordinates */
#define QR_ECL_L_BITS		1	/* level L in the format information */

/* Penalty weights, section 7.8.3.1. */
#define QR_N1			3
#define QR_N2			3
#define QR_N3			40
#define QR_N4			10

struct qr {
	u8 *mod;	/* output bitmap: 1 = dark */
	u8 *func;	/* work bitmap: 1 = function module */
	int size;
	int version;
};

static bool qr_version_ok(int version)
{
	return version >= KMSVT_QR_MIN_VERSION && version <= KMSVT_QR_MAX_VERSION;
}

/*
 * Modules left for data and ECC once the function patterns and format and
 * version information are taken out, remainder bits included.
 */
static u32 qr_raw_modules(int v)
{
	u32 n = (16 * v + 128) * v + 64;

	if (v >= 2) {
		u32 align = v / 7 + 2;

		n -= (25 * align - 10) * align - 55;
		if (v >= 7)
			n -= 36;
	}
	return n;
}

static u32 qr_total_codewords(int v)
{
	return qr_raw_modules(v) / 8;
}

static u32 qr_data_codewords(int v)
{
	return qr_total_codewords(v) - qr_ecc_per_block[v] * qr_num_blocks[v];
}

/* Bits of the character count indicator in byte mode. */
static u32 qr_count_bits(int v)
{
	return v < 10 ? 8 : 16;
}

size_t kmsvt_qr_max_bytes(int version)
{
	if (!qr_version_ok(version))
		return 0;
	return (qr_data_codewords(version) * 8 - 4 - qr_count_bits(version)) / 8;
}

int kmsvt_qr_version_for(size_t len)
{
	int v;

	for (v = KMSVT_QR_MIN_VERSION; v <= KMSVT_QR_MAX_VERSION; v++)
		if (len <= kmsvt_qr_max_bytes(v))
			return v;
	return -E2BIG;
}

size_t kmsvt_qr_work_len(int version)
{
	int size = KMSVT_QR_SIZE(version);

	if (!qr_version_ok(version))
		return 0;
	return kmsvt_qr_modules_len(size) + 2 * qr_total_codewords(version);
}

/* Bitmaps. */

static bool qr_bit(const u8 *map, int size, int x, int y)
{
	u32 i = (u32)y * (u32)size + (u32)x;

	return (map[i >> 3] >> (i & 7)) & 1;
}

static void qr_set_bit(u8 *map, int size, int x, int y, bool on)
{
	u32 i = (u32)y * (u32)size + (u32)x;

	if (on)
		map[i >> 3] |= 1 << (i & 7);
	else
		map[i >> 3] &= ~(1 << (i & 7));
}

static void qr_flip_bit(u8 *map, int size, int x, int y)
{
	u32 i = (u32)y * (u32)size + (u32)x;

	map[i >> 3] ^= 1 << (i & 7);
}

static bool qr_dark(const struct qr *q, int x, int y)
{
	return qr_bit(q->mod, q->size, x, y);
}

/* Set a function module: its colour, and mark it off limits for data. */
static void qr_set_func(struct qr *q, int x, int y, bool dark)
{
	qr_set_bit(q->mod, q->size, x, y, dark);
	qr_set_bit(q->func, q->size, x, y, true);
}

/* Reed-Solomon over GF(2^8) with the polynomial 0x11d, section 7.5.2. */

static u8 qr_gf_mul(u8 x, u8 y)
{
	u32 z = 0;
	int i;

	/* Bit-serial: no tables, so nothing to set up or keep. */
	for (i = 7; i >= 0; i--) {
		z = (z << 1) ^ ((z >> 7) * 0x11d);
		z ^= ((y >> i) & 1) * x;
	}
	return z;
}

/*
 * Generator polynomial of degree @deg, the product of (x - 2^i) for i in
 * [0, deg), coefficients from the highest power down, the leading 1 left
 * out.
 */
static void qr_rs_generator(u8 *gen, int deg)
{
	u8 root = 1;
	int i, j;

	memset(gen, 0, deg);
	gen[deg - 1] = 1;
	for (i = 0; i < deg; i++) {
		for (j = 0; j < deg; j++) {
			gen[j] = qr_gf_mul(gen[j], root);
			if (j + 1 < deg)
				gen[j] ^= gen[j + 1];
		}
		root = qr_gf_mul(root, 2);
	}
}

/* ECC codewords of @data: the remainder of data * x^deg divided by @gen. */
static void qr_rs_remainder(const u8 *data, u32 len, const u8 *gen, int deg, u8 *ecc)
{
	u32 i;
	int j;

	memset(ecc, 0, deg);
	for (i = 0; i < len; i++) {
		u8 factor = data[i] ^ ecc[0];

		for (j = 0; j + 1 < deg; j++)
			ecc[j] = ecc[j + 1] ^ qr_gf_mul(gen[j], factor);
		ecc[deg - 1] = qr_gf_mul(gen[deg - 1], factor);
	}
}

/* Data bit stream, section 7.4. */

static void qr_put_bits(u8 *buf, u32 *pos, u32 val, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--, (*pos)++)
		if ((val >> i) & 1)
			buf[*pos >> 3] |= 0x80 >> (*pos & 7);
}

static void qr_make_data(const u8 *data, size_t len, int v, u8 *buf)
{
	u32 cap = qr_data_codewords(v);
	u32 pos = 0;
	u32 i, end;

	memset(buf, 0, cap);
	qr_put_bits(buf, &pos, 0x4, 4);			/* byte mode */
	qr_put_bits(buf, &pos, len, qr_count_bits(v));
	for (i = 0; i < len; i++)
		qr_put_bits(buf, &pos, data[i], 8);
	/*
	 * Terminator of up to four zero bits, then zero bits to a codeword
	 * boundary: the buffer is already zero, only skip over them.
	 */
	end = pos + 4;
	if (end > cap * 8)
		end = cap * 8;
	pos = (end + 7) & ~7u;
	for (i = 0; pos < cap * 8; i++, pos += 8)
		buf[pos >> 3] = (i & 1) ? 0x11 : 0xec;
}

/*
 * Split the data codewords in @buf into blocks, append each block's ECC
 * after all the data, then interleave everything into @out (section 7.6).
 */
static void qr_make_codewords(int v, u8 *buf, u8 *out)
{
	u8 gen[QR_ECC_MAX];
	u32 total = qr_total_codewords(v);
	u32 ndata = qr_data_codewords(v);
	u32 nblocks = qr_num_blocks[v];
	u32 ecc = qr_ecc_per_block[v];
	u32 nshort = nblocks - total % nblocks;
	u32 short_data = total / nblocks - ecc;
	u32 b, i, k, start, dlen;

	qr_rs_generator(gen, ecc);
	for (b = 0, start = 0; b < nblocks; b++, start += dlen) {
		dlen = short_data + (b >= nshort);
		qr_rs_remainder(buf + start, dlen, gen, ecc, buf + ndata + b * ecc);
	}

	k = 0;
	for (i = 0; i <= short_data; i++) {
		for (b = 0, start = 0; b < nblocks; b++, start += dlen) {
			dlen = short_data + (b >= nshort);
			if (i < dlen)
				out[k++] = buf[start + i];
		}
	}
	for (i = 0; i < ecc; i++)
		for (b = 0; b < nblocks; b++)
			out[k++] = buf[ndata + b * ecc + i];
}

/* Function patterns, section 6.3. */

static int qr_abs(int a)
{
	return a < 0 ? -a : a;
}

static int qr_max(int a, int b)
{
	return a > b ? a : b;
}

/* Finder pattern centred at (@cx, @cy), with its separator. */
static void qr_draw_finder(struct qr *q, int cx, int cy)
{
	int dx, dy, x, y, d;

	for (dy = -4; dy <= 4; dy++) {
		for (dx = -4; dx <= 4; dx++) {
			x = cx + dx;
			y = cy + dy;
			if (x < 0 || y < 0 || x >= q->size || y >= q->size)
				continue;
			d = qr_max(qr_abs(dx), qr_abs(dy));
			qr_set_func(q, x, y, d != 2 && d != 4);
		}
	}
}

static void qr_draw_alignment(struct qr *q, int cx, int cy)
{
	int dx, dy;

	for (dy = -2; dy <= 2; dy++)
		for (dx = -2; dx <= 2; dx++)
			qr_set_func(q, cx + dx, cy + dy,
				    qr_max(qr_abs(dx), qr_abs(dy)) != 1);
}

/* Row and column coordinates of the alignment patterns (annex E). */
static int qr_alignment_positions(int v, int *pos)
{
	int n, step, i, p;

	if (v == 1)
		return 0;
	n = v / 7 + 2;
	step = v == 32 ? 26 : (v * 4 + n * 2 + 1) / (n * 2 - 2) * 2;
	pos[0] = 6;
	for (i = n - 1, p = v * 4 + 10; i >= 1; i--, p -= step)
		pos[i] = p;
	return n;
}

/* Format information, section 7.9: level L, @mask, BCH(15, 5). */
static void qr_draw_format(struct qr *q, int mask)
{
	u32 data = QR_ECL_L_BITS << 3 | mask;
	u32 rem = data;
	u32 bits;
	int i, s = q->size;

	for (i = 0; i < 10; i++)
		rem = (rem << 1) ^ ((rem >> 9) * 0x537);
	bits = (data << 10 | rem) ^ 0x5412;

	/* Around the top left finder. */
	for (i = 0; i <= 5; i++)
		qr_set_func(q, 8, i, (bits >> i) & 1);
	qr_set_func(q, 8, 7, (bits >> 6) & 1);
	qr_set_func(q, 8, 8, (bits >> 7) & 1);
	qr_set_func(q, 7, 8, (bits >> 8) & 1);
	for (i = 9; i < 15; i++)
		qr_set_func(q, 14 - i, 8, (bits >> i) & 1);

	/* The copy split between the other two finders. */
	for (i = 0; i < 8; i++)
		qr_set_func(q, s - 1 - i, 8, (bits >> i) & 1);
	for (i = 8; i < 15; i++)
		qr_set_func(q, 8, s - 15 + i, (bits >> i) & 1);
	qr_set_func(q, 8, s - 8, true);	/* the dark module */
}

/* Version information, section 7.10: BCH(18, 6), versions 7 and up. */
static void qr_draw_version(struct qr *q)
{
	u32 rem = q->version;
	u32 bits;
	int i, a, b;

	if (q->version < 7)
		return;
	for (i = 0; i < 12; i++)
		rem = (rem << 1) ^ ((rem >> 11) * 0x1f25);
	bits = (u32)q->version << 12 | rem;
	for (i = 0; i < 18; i++) {
		a = q->size - 11 + i % 3;
		b = i / 3;
		qr_set_func(q, a, b, (bits >> i) & 1);
		qr_set_func(q, b, a, (bits >> i) & 1);
	}
}

static void qr_draw_function_patterns(struct qr *q)
{
	int pos[QR_ALIGN_MAX];
	int i, j, n, s = q->size;

	for (i = 0; i < s; i++) {
		qr_set_func(q, 6, i, i % 2 == 0);
		qr_set_func(q, i, 6, i % 2 == 0);
	}
	qr_draw_finder(q, 3, 3);
	qr_draw_finder(q, s - 4, 3);
	qr_draw_finder(q, 3, s - 4);

	n = qr_alignment_positions(q->version, pos);
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			/* Not over the three finders. */
			if ((i == 0 && j == 0) || (i == 0 && j == n - 1) ||
			    (i == n - 1 && j == 0))
				continue;
			qr_draw_alignment(q, pos[i], pos[j]);
		}
	}

	qr_draw_format(q, 0);	/* reserve the area; redrawn per mask */
	qr_draw_version(q);
}

/*
 * Codeword placement, section 7.7.3: two-module columns from the right,
 * zigzagging up and down, skipping the vertical timing pattern. Remainder
 * bits stay light.
 */
static void qr_draw_codewords(struct qr *q, const u8 *cw, u32 n)
{
	u32 i = 0;
	int right, vert, j, x, y, s = q->size;
	bool up;

	for (right = s - 1; right >= 1; right -= 2) {
		if (right == 6)
			right = 5;
		up = ((right + 1) & 2) == 0;
		for (vert = 0; vert < s; vert++) {
			for (j = 0; j < 2; j++) {
				x = right - j;
				y = up ? s - 1 - vert : vert;
				if (qr_bit(q->func, s, x, y) || i >= n * 8)
					continue;
				qr_set_bit(q->mod, s, x, y, (cw[i >> 3] >> (7 - (i & 7))) & 1);
				i++;
			}
		}
	}
}

/* Data masks, section 7.8.2, table 10. */

static bool qr_mask_bit(int mask, int x, int y)
{
	switch (mask) {
	case 0:
		return (x + y) % 2 == 0;
	case 1:
		return y % 2 == 0;
	case 2:
		return x % 3 == 0;
	case 3:
		return (x + y) % 3 == 0;
	case 4:
		return (x / 3 + y / 2) % 2 == 0;
	case 5:
		return x * y % 2 + x * y % 3 == 0;
	case 6:
		return (x * y % 2 + x * y % 3) % 2 == 0;
	default:
		return ((x + y) % 2 + x * y % 3) % 2 == 0;
	}
}

/* XOR @mask over the data modules; applying it twice undoes it. */
static void qr_apply_mask(struct qr *q, int mask)
{
	int x, y, s = q->size;

	for (y = 0; y < s; y++)
		for (x = 0; x < s; x++)
			if (!qr_bit(q->func, s, x, y) && qr_mask_bit(mask, x, y))
				qr_flip_bit(q->mod, s, x, y);
}

/* Penalty score, section 7.8.3. */

/*
 * The run history keeps the last seven run lengths of one line, newest
 * first. The light area outside the symbol counts as part of the first
 * and last runs.
 */
struct qr_runs {
	int len[7];
	int size;
};

static void qr_runs_push(struct qr_runs *r, int run)
{
	int *h = r->len;

	if (!h[0])
		run += r->size;		/* light border before the line */
	/* Spelt out: as a loop, gcc turns this into a call to memmove(). */
	h[6] = h[5];
	h[5] = h[4];
	h[4] = h[3];
	h[3] = h[2];
	h[2] = h[1];
	h[1] = h[0];
	h[0] = run;
}

/*
 * Finder-like 1:1:3:1:1 (dark:light:dark:light:dark) patterns ending at
 * the newest run, with four light modules on one side or the other.
 */
static int qr_runs_finders(const struct qr_runs *r)
{
	const int *h = r->len;
	int n = h[1];
	bool core = n > 0 && h[2] == n && h[3] == n * 3 && h[4] == n && h[5] == n;

	return (core && h[0] >= n * 4 && h[6] >= n) +
	       (core && h[6] >= n * 4 && h[0] >= n);
}

/* Score one line (row or column) for rules N1 and N3. */
static u32 qr_penalty_line(const struct qr *q, int line, bool column)
{
	struct qr_runs r;
	u32 score = 0;
	bool color = false, dark;
	int i, run = 0;

	memset(&r, 0, sizeof(r));
	r.size = q->size;
	for (i = 0; i < q->size; i++) {
		dark = column ? qr_dark(q, line, i) : qr_dark(q, i, line);
		if (dark == color) {
			run++;
			if (run == 5)
				score += QR_N1;
			else if (run > 5)
				score++;
			continue;
		}
		qr_runs_push(&r, run);
		if (!color)
			score += qr_runs_finders(&r) * QR_N3;
		color = dark;
		run = 1;
	}
	/* End the line with the light border after it. */
	if (color) {
		qr_runs_push(&r, run);
		run = 0;
	}
	qr_runs_push(&r, run + q->size);
	return score + qr_runs_finders(&r) * QR_N3;
}

static u32 qr_penalty(const struct qr *q)
{
	u32 score = 0, dark = 0, total, k;
	int x, y, s = q->size;
	bool c;

	for (y = 0; y < s; y++) {
		score += qr_penalty_line(q, y, false);
		score += qr_penalty_line(q, y, true);
	}

	/* N2: 2x2 blocks of one colour. */
	for (y = 0; y < s - 1; y++) {
		for (x = 0; x < s - 1; x++) {
			c = qr_dark(q, x, y);
			if (c == qr_dark(q, x + 1, y) && c == qr_dark(q, x, y + 1) &&
			    c == qr_dark(q, x + 1, y + 1))
				score += QR_N2;
		}
	}

	/* N4: 10 points per 5% step away from half dark. */
	for (y = 0; y < s; y++)
		for (x = 0; x < s; x++)
			dark += qr_dark(q, x, y);
	total = (u32)s * (u32)s;
	k = dark * 20 > total * 10 ? dark * 20 - total * 10 : total * 10 - dark * 20;
	k = (k + total - 1) / total - 1;
	return score + k * QR_N4;
}

int kmsvt_qr_encode(const u8 *data, size_t len, u8 *work, size_t work_len,
		    u8 *modules, size_t modules_len)
{
	struct qr q;
	u8 *buf, *cw;
	u32 best_score = 0, score;
	int v, mask, best = 0;

	if ((!data && len) || !work || !modules)
		return -EINVAL;
	v = kmsvt_qr_version_for(len);
	if (v < 0)
		return v;
	q.version = v;
	q.size = KMSVT_QR_SIZE(v);
	if (work_len < kmsvt_qr_work_len(v) ||
	    modules_len < kmsvt_qr_modules_len(q.size))
		return -ENOSPC;

	q.mod = modules;
	q.func = work;
	buf = work + kmsvt_qr_modules_len(q.size);
	cw = buf + qr_total_codewords(v);
	memset(q.mod, 0, kmsvt_qr_modules_len(q.size));
	memset(q.func, 0, kmsvt_qr_modules_len(q.size));

	qr_make_data(data, len, v, buf);
	qr_make_codewords(v, buf, cw);
	qr_draw_function_patterns(&q);
	qr_draw_codewords(&q, cw, qr_total_codewords(v));

	for (mask = 0; mask < 8; mask++) {
		qr_apply_mask(&q, mask);
		qr_draw_format(&q, mask);
		score = qr_penalty(&q);
		if (mask == 0 || score < best_score) {
			best = mask;
			best_score = score;
		}
		qr_apply_mask(&q, mask);
	}
	qr_apply_mask(&q, best);
	qr_draw_format(&q, best);
	return q.size;
}
