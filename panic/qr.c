// SPDX-License-Identifier: GPL-2.0
/*
 * QR code encoder for the panic screen, after ISO/IEC 18004:2015.
 *
 * One byte-mode segment at error correction level L, the smallest version
 * that fits, the mask with the lowest penalty (rules N1..N4 of section
 * 7.8.3). See qr.h for the interface and the constraints it keeps.
 *
 * It runs in a panic, often in a guest under QEMU's TCG, where each memory
 * access and each call costs many host instructions and ALU work is cheap,
 * and where code run once costs about as much to translate as to run. So
 * the symbol is kept as lines of bits in 64-bit words, once as rows and
 * once as columns, and the eight masks are scored a word at a time: a mask
 * is an XOR with a periodic pattern, and the penalty rules are shifts, ANDs
 * and bit counts over a line. The Reed-Solomon remainder takes a codeword
 * at a time from two small tables. The scores are the rules' own, module
 * for module (tests/host/qr/test_qr.py recomputes them the plain way), so
 * the mask chosen is the standard's.
 *
 * A line holds QR_LINE_WORDS words; module i of a line is bit QR_PAD + i,
 * counting from bit 0 of the first word. The bits around the modules stay
 * 0, light: the light border the finder-pattern rule counts.
 *
 * Work buffer layout for a symbol of size s with n codewords, from the
 * first 8-byte boundary in it:
 *
 *   4 bitmaps of s lines:   dark modules, data modules (rows), then the
 *                           same two in columns (line x is column x)
 *   QR_SCRATCH_WORDS words: the Reed-Solomon tables, later the block of
 *                           bits being transposed, last the masks of the
 *                           windows a line is scored in
 *   n bytes                 the codewords, interleaved
 *   n bytes                 data codewords, then each block's ECC
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

#define QR_ALIGN_MAX		7	/* most alignment pattern coordinates */
#define QR_ECL_L_BITS		1	/* level L in the format information */

/* Penalty weights, section 7.8.3.1. */
#define QR_N1			3
#define QR_N2			3
#define QR_N3			40
#define QR_N4			10

/* Lines of bits; see the top of the file. */
#define QR_LINE_WORDS		(KMSVT_QR_LINE_BYTES / 8)
#define QR_PAD			4	/* light bits before module 0 */
#define QR_ECC_WORDS		4	/* a block's ECC codewords, 8 a word */
#define QR_SCRATCH_WORDS	(2 * 16 * QR_ECC_WORDS)

/*
 * The masks repeat every 12 modules along a line and every 12 lines: one
 * 12-bit unit a line is enough to build their words.
 */
#define QR_MASK_PERIOD		12
#define QR_MASK_REPEAT		0x1001001001001001ULL	/* a unit every 12 bits */

/* What one of the four windows of a line counts; see qr_window(). */
struct qr_win {
	u64 own;	/* the starts it counts */
	u64 n1;		/* starts of 5 modules in the symbol */
	u64 n2;		/* its own starts of 2x2 blocks in the symbol */
};

struct qr {
	u64 *mod;	/* rows, 1 = dark */
	u64 *data;	/* rows, 1 = data module: not function, not border */
	u64 *mod_t;	/* the same two in columns */
	u64 *data_t;
	u64 *scratch;
	struct qr_win *win;	/* 4, in the scratch once the tables are done */
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

/* Bytes of one of the four bitmaps. */
static size_t qr_map_bytes(int size)
{
	return (size_t)size * KMSVT_QR_LINE_BYTES;
}

size_t kmsvt_qr_work_len(int version)
{
	if (!qr_version_ok(version))
		return 0;
	return 7 + 4 * qr_map_bytes(KMSVT_QR_SIZE(version)) + QR_SCRATCH_WORDS * 8 +
	       2 * qr_total_codewords(version);
}

/* Bits and lines. */

/* Bits [lo, hi) of a word, clipped to the word. */
static u64 qr_bits(int lo, int hi)
{
	lo = lo < 0 ? 0 : lo;
	hi = hi > 64 ? 64 : hi;
	if (lo >= hi)
		return 0;
	return (~0ULL >> (64 - (hi - lo))) << lo;
}

/*
 * Bits set in @w. Not hweight64(): the CPU QEMU emulates by default has no
 * POPCNT, and the kernel's fallback is a call.
 */
static inline u32 qr_popcount(u64 w)
{
	w -= (w >> 1) & 0x5555555555555555ULL;
	w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (w * 0x0101010101010101ULL) >> 56;
}

static u64 *qr_word(u64 *map, int line, int pos)
{
	return map + line * QR_LINE_WORDS + ((pos + QR_PAD) >> 6);
}

static u64 qr_mask_of(int pos)
{
	return 1ULL << ((pos + QR_PAD) & 63);
}

static void qr_put(u64 *map, int line, int pos, bool on)
{
	u64 *w = qr_word(map, line, pos);

	if (on)
		*w |= qr_mask_of(pos);
	else
		*w &= ~qr_mask_of(pos);
}

/* Set a function module: its colour, and mark it off limits for data. */
static void qr_set_func(struct qr *q, int x, int y, bool dark)
{
	qr_put(q->mod, y, x, dark);
	qr_put(q->data, y, x, false);
}

/* Reed-Solomon over GF(2^8) with the polynomial 0x11d, section 7.5.2. */

/* Each of the 8 bytes of @w times x (that is, 2) in GF(2^8). */
static u64 qr_gf_double8(u64 w)
{
	u64 carry = (w >> 7) & 0x0101010101010101ULL;

	return ((w & 0x7f7f7f7f7f7f7f7fULL) << 1) ^ (carry * 0x1d);
}

/*
 * Polynomials of up to 32 coefficients over GF(2^8) are QR_ECC_WORDS
 * words: coefficient j in byte 7 - j % 8 of word j / 8, so that shifting
 * the words left by a byte moves every coefficient up one place.
 */

/*
 * Generator polynomial of degree @deg into @gen: the product of (x - 2^i)
 * for i in [0, deg), coefficients from the highest power down, the leading
 * 1 left out. Multiplying by x - 2^i is a shift plus i doublings.
 */
static void qr_rs_generator(u64 *gen, int deg)
{
	u64 t[QR_ECC_WORDS];
	int i, k, n;

	memset(gen, 0, QR_ECC_WORDS * 8);
	gen[(deg - 1) / 8] = 1ULL << (56 - 8 * ((deg - 1) % 8));
	for (i = 0; i < deg; i++) {
		for (k = 0; k < QR_ECC_WORDS; k++)
			for (n = 0, t[k] = gen[k]; n < i; n++)
				t[k] = qr_gf_double8(t[k]);
		for (k = 0; k < QR_ECC_WORDS; k++)
			gen[k] = t[k] ^ gen[k] << 8 ^
				 (k + 1 < QR_ECC_WORDS ? gen[k + 1] >> 56 : 0);
	}
}

/*
 * The generator times f, for f = 0..15 and for f = 0x00..0xf0 in steps of
 * 0x10: a product by any byte is one of each, XORed (multiplication is
 * linear). Each entry is a polynomial as above; the bytes past @deg stay 0.
 */
static void qr_rs_tables(int deg, u64 *tab)
{
	u64 *lo = tab, *hi = tab + 16 * QR_ECC_WORDS;
	int f, k, n;

	memset(tab, 0, QR_SCRATCH_WORDS * 8);
	/* Entry 1 of each: the generator, and the generator times 0x10. */
	qr_rs_generator(lo + QR_ECC_WORDS, deg);
	for (k = 0; k < QR_ECC_WORDS; k++)
		for (n = 0, hi[QR_ECC_WORDS + k] = lo[QR_ECC_WORDS + k]; n < 4; n++)
			hi[QR_ECC_WORDS + k] = qr_gf_double8(hi[QR_ECC_WORDS + k]);
	/* Then f from f / 2 (doubled) or from f - 1 (plus entry 1). */
	for (f = 2; f < 16; f++) {
		for (k = 0; k < QR_ECC_WORDS; k++) {
			u64 *l = lo + f * QR_ECC_WORDS + k, *h = hi + f * QR_ECC_WORDS + k;

			if (f & 1) {
				*l = l[-QR_ECC_WORDS] ^ lo[QR_ECC_WORDS + k];
				*h = h[-QR_ECC_WORDS] ^ hi[QR_ECC_WORDS + k];
			} else {
				*l = qr_gf_double8(lo[f / 2 * QR_ECC_WORDS + k]);
				*h = qr_gf_double8(hi[f / 2 * QR_ECC_WORDS + k]);
			}
		}
	}
}

/*
 * ECC codewords of @data: the remainder of data * x^deg divided by the
 * generator of @tab, a polynomial in QR_ECC_WORDS words kept in registers.
 */
static void qr_rs_remainder(const u8 *data, u32 len, const u64 *tab, int deg, u8 *ecc)
{
	u64 e0 = 0, e1 = 0, e2 = 0, e3 = 0;
	const u64 *lo, *hi;
	u32 i, f;
	int j;

	for (i = 0; i < len; i++) {
		f = data[i] ^ (e0 >> 56);
		lo = tab + (f & 15) * QR_ECC_WORDS;
		hi = tab + (16 + (f >> 4)) * QR_ECC_WORDS;
		e0 = (e0 << 8 | e1 >> 56) ^ lo[0] ^ hi[0];
		e1 = (e1 << 8 | e2 >> 56) ^ lo[1] ^ hi[1];
		e2 = (e2 << 8 | e3 >> 56) ^ lo[2] ^ hi[2];
		e3 = (e3 << 8) ^ lo[3] ^ hi[3];
	}
	for (j = 0; j < deg; j++) {
		u64 w = j < 8 ? e0 : j < 16 ? e1 : j < 24 ? e2 : e3;

		ecc[j] = w >> (56 - 8 * (j % 8));
	}
}

/* Data bit stream, section 7.4. */

/* The low @n bits of @val at bit *pos of @buf, 8 at a time, first bit first. */
static void qr_put_bits(u8 *buf, u32 *pos, u32 val, int n)
{
	int take;
	u32 v;

	for (; n > 0; n -= take, *pos += take) {
		take = n > 8 ? 8 : n;
		v = ((val >> (n - take)) & ((1u << take) - 1)) << (16 - take - (*pos & 7));
		buf[*pos >> 3] |= v >> 8;
		if (v & 0xff)	/* never past the bits written */
			buf[(*pos >> 3) + 1] |= v;
	}
}

static noinline_for_stack void qr_make_data(const u8 *data, size_t len, int v, u8 *buf)
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
static noinline_for_stack void qr_make_codewords(struct qr *q, u8 *buf, u8 *out)
{
	int v = q->version;
	u32 total = qr_total_codewords(v);
	u32 ndata = qr_data_codewords(v);
	u32 nblocks = qr_num_blocks[v];
	u32 ecc = qr_ecc_per_block[v];
	u32 nshort = nblocks - total % nblocks;
	u32 short_data = total / nblocks - ecc;
	u32 b, i, k, start, dlen;

	qr_rs_tables(ecc, q->scratch);
	for (b = 0, start = 0; b < nblocks; b++, start += dlen) {
		dlen = short_data + (b >= nshort);
		qr_rs_remainder(buf + start, dlen, q->scratch, ecc, buf + ndata + b * ecc);
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

/* The 15 bits of format information, section 7.9: level L, @mask, BCH(15, 5). */
static u32 qr_format_bits(int mask)
{
	u32 data = QR_ECL_L_BITS << 3 | mask;
	u32 rem = data;
	int i;

	for (i = 0; i < 10; i++)
		rem = (rem << 1) ^ ((rem >> 9) * 0x537);
	return (data << 10 | rem) ^ 0x5412;
}

/*
 * Module (@x, @y) of the format information: a function module, in the
 * rows and, once the columns exist (@both), in the columns too.
 */
static void qr_put_format(struct qr *q, int x, int y, bool dark, bool both)
{
	qr_set_func(q, x, y, dark);
	if (both)
		qr_put(q->mod_t, x, y, dark);
}

/* Format information for @mask, both copies; see qr_put_format() for @both. */
static void qr_draw_format(struct qr *q, int mask, bool both)
{
	u32 bits = qr_format_bits(mask);
	int i, s = q->size;

	/* Around the top left finder. */
	for (i = 0; i <= 5; i++)
		qr_put_format(q, 8, i, (bits >> i) & 1, both);
	qr_put_format(q, 8, 7, (bits >> 6) & 1, both);
	qr_put_format(q, 8, 8, (bits >> 7) & 1, both);
	qr_put_format(q, 7, 8, (bits >> 8) & 1, both);
	for (i = 9; i < 15; i++)
		qr_put_format(q, 14 - i, 8, (bits >> i) & 1, both);

	/* The copy split between the other two finders. */
	for (i = 0; i < 8; i++)
		qr_put_format(q, s - 1 - i, 8, (bits >> i) & 1, both);
	for (i = 8; i < 15; i++)
		qr_put_format(q, 8, s - 15 + i, (bits >> i) & 1, both);
	qr_put_format(q, 8, s - 8, true, both);	/* the dark module */
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

/* Every module of the symbol a data module, the border light. */
static void qr_clear(struct qr *q)
{
	int y, k, s = q->size;

	memset(q->mod, 0, qr_map_bytes(s));
	for (y = 0; y < s; y++)
		for (k = 0; k < QR_LINE_WORDS; k++)
			q->data[y * QR_LINE_WORDS + k] = qr_bits(QR_PAD - 64 * k,
								 QR_PAD + s - 64 * k);
}

static noinline_for_stack void qr_draw_function_patterns(struct qr *q)
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

	qr_draw_format(q, 0, false);	/* reserve the area; redrawn per mask */
	qr_draw_version(q);
}

/*
 * Codeword placement, section 7.7.3: two-module columns from the right,
 * zigzagging up and down, skipping the vertical timing pattern. Remainder
 * bits stay light, as do the light bits: only dark ones are set.
 */
static noinline_for_stack void qr_draw_codewords(struct qr *q, const u8 *cw, u32 n)
{
	u32 i = 0, nbits = n * 8;
	int right, vert, j, k, s = q->size;
	u64 bit;

	for (right = s - 1; right >= 1; right -= 2) {
		if (right == 6)
			right = 5;
		for (vert = 0; vert < s; vert++) {
			k = (((right + 1) & 2) ? vert : s - 1 - vert) * QR_LINE_WORDS;
			for (j = 0; j < 2; j++) {
				bit = qr_mask_of(right - j);
				if (!(q->data[k + ((right - j + QR_PAD) >> 6)] & bit))
					continue;
				if (i == nbits)
					return;
				if ((cw[i >> 3] << (i & 7)) & 0x80)
					q->mod[k + ((right - j + QR_PAD) >> 6)] |= bit;
				i++;
			}
		}
	}
}

/*
 * Transpose a 64x64 block of bits in place: bit j of word i swaps with bit
 * i of word j (Hacker's Delight, 7-3: halves, then quarters, ...).
 */
static void qr_transpose64(u64 *a)
{
	u64 m = 0x00000000ffffffffULL, t;
	int j, k;

	for (j = 32; j; j >>= 1, m ^= m << j) {
		for (k = 0; k < 64; k = (k + j + 1) & ~j) {
			t = ((a[k] >> j) ^ a[k + j]) & m;
			a[k] ^= t << j;
			a[k + j] ^= t;
		}
	}
}

/*
 * @dst, in columns, from @src, in rows: block by block, counting lines
 * from QR_PAD before line 0 so that lines and bits line up.
 */
static void qr_transpose(const struct qr *q, const u64 *src, u64 *dst)
{
	u64 *blk = q->scratch;
	int from, to, k, line, s = q->size;

	for (from = 0; from < QR_LINE_WORDS; from++) {
		for (to = 0; to < QR_LINE_WORDS; to++) {
			for (k = 0; k < 64; k++) {
				line = 64 * from + k - QR_PAD;
				blk[k] = line >= 0 && line < s ?
					 src[line * QR_LINE_WORDS + to] : 0;
			}
			qr_transpose64(blk);
			for (k = 0; k < 64; k++) {
				line = 64 * to + k - QR_PAD;
				if (line >= 0 && line < s)
					dst[line * QR_LINE_WORDS + from] = blk[k];
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

/*
 * @mask along a line, by the line's number modulo QR_MASK_PERIOD: bit i of
 * unit[l] is the mask at position i (and i + 12, ...) of line l. Lines are
 * rows, or columns when @column.
 */
static void qr_mask_units(int mask, bool column, u16 *unit)
{
	int l, i;

	for (l = 0; l < QR_MASK_PERIOD; l++) {
		unit[l] = 0;
		for (i = 0; i < QR_MASK_PERIOD; i++)
			if (column ? qr_mask_bit(mask, l, i) : qr_mask_bit(mask, i, l))
				unit[l] |= 1 << i;
	}
}

/* Word @k of a line of the mask of @unit: it starts at position 64k - QR_PAD. */
static inline u64 qr_mask_word(u32 unit, int k)
{
	int phase = (64 * k - QR_PAD + QR_MASK_PERIOD) % QR_MASK_PERIOD;

	unit = ((unit | unit << QR_MASK_PERIOD) >> phase) & 0xfff;
	return unit * QR_MASK_REPEAT;
}

/* Line @l of @mod with the mask of @unit over its data modules (@data). */
static inline void qr_masked_line(const u64 *mod, const u64 *data, int l, u32 unit, u64 *m)
{
	int k;

	mod += l * QR_LINE_WORDS;
	data += l * QR_LINE_WORDS;
	for (k = 0; k < QR_LINE_WORDS; k++)
		m[k] = mod[k] ^ (qr_mask_word(unit, k) & data[k]);
}

/* Penalty score, section 7.8.3. */

/*
 * A line is scored in four windows of 64 bits, taken at these bit offsets;
 * each window counts what starts in its bits [lo, 53], so that it sees the
 * 4 bits before and the 10 after what it counts, and together they cover
 * every start from module 0 to module 177 (bits 4 to 181).
 */
static const u8 qr_win_at[4] = { 0, 48, 96, 128 };
static const u8 qr_win_lo[4] = { 4, 6, 6, 22 };
#define QR_WIN_HI	54

/* Window @j of line @m: its bits from qr_win_at[j] on. */
static inline u64 qr_window(const u64 *m, int j)
{
	int k = qr_win_at[j] / 64, sh = qr_win_at[j] % 64;

	return sh ? m[k] >> sh | m[k + 1] << (64 - sh) : m[k];
}

/* The masks of struct qr_win, for the symbol's size, in the scratch. */
static void qr_init_windows(struct qr *q)
{
	int j, at;

	q->win = (struct qr_win *)q->scratch;
	for (j = 0; j < 4; j++) {
		at = qr_win_at[j];
		q->win[j].own = qr_bits(qr_win_lo[j], QR_WIN_HI);
		q->win[j].n1 = qr_bits(QR_PAD - at, QR_PAD + q->size - 4 - at);
		q->win[j].n2 = q->win[j].own & qr_bits(QR_PAD - at, QR_PAD + q->size - 1 - at);
	}
}

/*
 * Consecutive modules of colour @dark in line @m from module @pos on, in
 * direction @dir (+1 or -1). The border is light: a light run reaching it
 * counts the border too, as size modules (it is at least 4 wide).
 */
static int qr_run(const u64 *m, int pos, bool dark, int dir, int size)
{
	int n = 0;

	for (;; pos += dir, n++) {
		if (pos < 0 || pos >= size)
			return dark ? n : n + size;
		if (((m[(pos + QR_PAD) >> 6] >> ((pos + QR_PAD) & 63)) & 1) != dark)
			return n;
	}
}

/*
 * N3 for the patterns wider than one module a stripe: around the dark run
 * at module @c, @len long (6, 9, ...), 1:1:3:1:1 patterns of n = len / 3,
 * light before and after, 4n light on one side (as in the 1-wide case).
 * Such runs are few, so this goes module by module, out of line: inlined,
 * its code would be translated (under TCG) in full for a few calls.
 */
static noinline u32 qr_finders_wide(const u64 *m, int c, int len, int size)
{
	int n = len / 3, a, b, after, before;

	a = c + len;
	b = c - 1;
	if (qr_run(m, a, false, 1, size) != n || qr_run(m, a + n, true, 1, size) != n ||
	    qr_run(m, b, false, -1, size) != n || qr_run(m, b - n, true, -1, size) != n)
		return 0;
	after = qr_run(m, a + 2 * n, false, 1, size);
	before = qr_run(m, b - 2 * n, false, -1, size);
	return (after >= 4 * n && before >= n) + (before >= 4 * n && after >= n);
}

/*
 * N1 and N3 of window @w, window @j of line @m. In a window, bit i is the
 * module at i - QR_PAD + qr_win_at[j].
 */
static u32 qr_score_window(const struct qr *q, u64 w, int j, const u64 *m)
{
	u64 own = q->win[j].own, z = ~w, e, d3, core, wide;
	u32 score, finders = 0;

	/* N1: 3 for 5 modules of one colour in a row, 1 more for each next. */
	e = ~(w ^ (w >> 1));		/* bit i: modules i and i + 1 alike */
	e &= e >> 1;
	e &= (e >> 2) & q->win[j].n1;	/* i..i+4 alike */
	score = qr_popcount(e & own) + 2 * qr_popcount(e & ~(e << 1) & own);

	/* N3, 1 module wide: dark, light, 3 dark, light, dark, from bit i. */
	d3 = w & (w >> 1) & (w >> 2);
	core = w & (z >> 1) & (d3 >> 2) & (z >> 5) & (w >> 6) & own;
	if (core) {
		u64 z4 = z & (z >> 1);

		z4 &= z4 >> 2;		/* bit i: modules i..i+3 light */
		finders = qr_popcount(core & (z << 1) & (z4 >> 7)) +
			  qr_popcount(core & (z4 << 4) & (z >> 7));
	}

	/*
	 * N3, wider: dark runs of 6 or more after 2 light modules, checked
	 * one by one when 3 divides their length. A run that reaches the top
	 * of the window may go on past it.
	 */
	wide = d3 & (d3 >> 3) & (z << 1) & (z << 2) & own;
	for (; wide; wide &= wide - 1) {
		int b = __ffs64(wide), len = __ffs64(~(w >> b));
		int c = b + qr_win_at[j] - QR_PAD;

		if (b + len == 64)
			len = qr_run(m, c, true, 1, q->size);
		if (len % 3 == 0)
			finders += qr_finders_wide(m, c, len, q->size);
	}
	return score + finders * QR_N3;
}

/* N2: 2x2 blocks of one colour, in window @j of two lines (@a, @b). */
static inline u32 qr_score_blocks(const struct qr *q, u64 a, u64 b, int j)
{
	u64 v = ~(a ^ b);

	v &= (v >> 1) & ~(a ^ (a >> 1));
	return qr_popcount(v & q->win[j].n2) * QR_N2;
}

/*
 * N1, N3 and N2 over the rows (@rows) or the columns, with @mask on; the
 * dark modules counted into @dark.
 */
static u32 qr_score_lines(const struct qr *q, int mask, bool rows, u32 *dark)
{
	const u64 *mod = rows ? q->mod : q->mod_t, *data = rows ? q->data : q->data_t;
	u64 line[2][QR_LINE_WORDS], w;
	u16 unit[QR_MASK_PERIOD];
	u32 score = 0;
	int l, j, k, s = q->size;

	qr_mask_units(mask, !rows, unit);
	for (l = 0; l < s; l++) {
		u64 *m = line[l & 1], *prev = line[!(l & 1)];

		qr_masked_line(mod, data, l, unit[l % QR_MASK_PERIOD], m);
		for (j = 0; j < 4; j++) {
			w = qr_window(m, j);
			score += qr_score_window(q, w, j, m);
			if (rows && l)
				score += qr_score_blocks(q, qr_window(prev, j), w, j);
		}
		for (k = 0; rows && k < QR_LINE_WORDS; k++)
			*dark += qr_popcount(m[k]);
	}
	return score;
}

static u32 qr_penalty(const struct qr *q, int mask)
{
	u32 dark = 0, total = (u32)q->size * (u32)q->size, k, score;

	score = qr_score_lines(q, mask, true, &dark) + qr_score_lines(q, mask, false, &dark);

	/* N4: 10 points per 5% step away from half dark. */
	k = dark * 20 > total * 10 ? dark * 20 - total * 10 : total * 10 - dark * 20;
	k = (k + total - 1) / total - 1;
	return score + k * QR_N4;
}

/* The rows with @mask into @out: row after row, no padding, bit 0 first. */
static noinline_for_stack void qr_pack(const struct qr *q, int mask, u8 *out)
{
	u64 m[QR_LINE_WORDS], bits;
	u16 unit[QR_MASK_PERIOD];
	u32 pos = 0;
	int y, k, n, off, take, s = q->size;

	qr_mask_units(mask, false, unit);
	memset(out, 0, kmsvt_qr_modules_len(s));
	for (y = 0; y < s; y++) {
		qr_masked_line(q->mod, q->data, y, unit[y % QR_MASK_PERIOD], m);
		for (k = 0; k < QR_LINE_WORDS; k++) {
			int lo = k ? 0 : QR_PAD;

			bits = m[k] >> lo;
			n = s + QR_PAD - 64 * k - lo;
			n = n < 0 ? 0 : n > 64 - lo ? 64 - lo : n;
			for (; n > 0; n -= take, bits >>= take, pos += take) {
				off = pos & 7;
				take = n < 8 - off ? n : 8 - off;
				out[pos >> 3] |= (u8)((bits & ((1u << take) - 1)) << off);
			}
		}
	}
}

int kmsvt_qr_encode(const u8 *data, size_t len, u8 *work, size_t work_len,
		    u8 *modules, size_t modules_len)
{
	struct qr q;
	u8 *buf, *cw;
	u32 best_score = 0, score;
	int v, mask, best = 0;
	size_t map;

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

	/* Word-aligned: kmsvt_qr_work_len() counts the bytes this may skip. */
	map = qr_map_bytes(q.size) / 8;
	q.mod = (u64 *)(work + (-(uintptr_t)work & 7));
	q.data = q.mod + map;
	q.mod_t = q.data + map;
	q.data_t = q.mod_t + map;
	q.scratch = q.data_t + map;
	cw = (u8 *)(q.scratch + QR_SCRATCH_WORDS);
	buf = cw + qr_total_codewords(v);

	qr_make_data(data, len, v, buf);
	qr_make_codewords(&q, buf, cw);
	qr_clear(&q);
	qr_draw_function_patterns(&q);
	qr_draw_codewords(&q, cw, qr_total_codewords(v));
	qr_transpose(&q, q.mod, q.mod_t);
	qr_transpose(&q, q.data, q.data_t);
	qr_init_windows(&q);

	for (mask = 0; mask < 8; mask++) {
		qr_draw_format(&q, mask, true);
		score = qr_penalty(&q, mask);
		if (mask == 0 || score < best_score) {
			best = mask;
			best_score = score;
		}
	}
	qr_draw_format(&q, best, false);
	qr_pack(&q, best, modules);
	return q.size;
}
