/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pixel primitives: text and fills written into VRAM 8 bytes a store, from
 * a table of the words a bit pattern makes in two colours, and the
 * geometry of a font's glyphs.  The panic screen draws with them, and so
 * does the console (fbdev's imageblit and fillrect), which is why they
 * live in a header: inlined into both, they cost no call per glyph row.
 * They allocate nothing and take no lock.
 *
 * Pixels are packed already (the caller's format), @cpp bytes each: 4, 2
 * or 1.  Little endian: the leftmost pixel is in the lowest bytes.
 */
#ifndef KMSVT_DRAW_H
#define KMSVT_DRAW_H

#include <linux/font.h>
#include <linux/io.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/types.h>

/*
 * word[bits]: the 2 (4 bytes a pixel) or 4 (2 and 1) pixels of @bits'
 * width, leftmost pixel in the highest bit.  At 1 byte a pixel a word holds
 * half a glyph row; two make the 8-byte store.
 */
struct kmsvt_ink {
	u64 word[16];
	u32 fg;
	u32 bg;
	u32 cpp;
};

static inline void kmsvt_ink_init(struct kmsvt_ink *ink, u32 cpp, u32 fg, u32 bg)
{
	u32 per = min(8 / cpp, 4u), bits, k;

	ink->fg = fg;
	ink->bg = bg;
	ink->cpp = cpp;
	for (bits = 0; bits < 1u << per; bits++) {
		u64 v = 0;

		for (k = 0; k < per; k++) {
			u64 px = bits & (1u << (per - 1 - k)) ? fg : bg;

			v |= px << (8 * cpp * k);
		}
		ink->word[bits] = v;
	}
}

static inline void kmsvt_put_px(u8 __iomem *p, u32 cpp, u32 px)
{
	if (cpp == 4)
		writel(px, p);
	else if (cpp == 2)
		writew(px, p);
	else
		writeb(px, p);
}

/* The first @n (at most 8) pixels of @bits at @p, a store each. */
static inline void kmsvt_ink_part(const struct kmsvt_ink *ink, u8 __iomem *p, u8 bits, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		kmsvt_put_px(p + i * ink->cpp, ink->cpp, bits & (0x80 >> i) ? ink->fg : ink->bg);
}

/* The 8 pixels of @bits at @p: foreground where a bit is set. */
static inline void kmsvt_ink_row8(const struct kmsvt_ink *ink, u8 __iomem *p, u8 bits)
{
	if ((uintptr_t)p & 7) {
		kmsvt_ink_part(ink, p, bits, 8);
	} else if (ink->cpp == 4) {
		writeq(ink->word[bits >> 6], p);
		writeq(ink->word[(bits >> 4) & 3], p + 8);
		writeq(ink->word[(bits >> 2) & 3], p + 16);
		writeq(ink->word[bits & 3], p + 24);
	} else if (ink->cpp == 2) {
		writeq(ink->word[bits >> 4], p);
		writeq(ink->word[bits & 15], p + 8);
	} else {
		writeq(ink->word[bits >> 4] | ink->word[bits & 15] << 32, p);
	}
}

/*
 * @n bytes of bits, 8 pixels each, from @p on: a row of a 1-bit image.
 * The console draws a text row with this, so the alignment and depth are
 * looked at once per row, not once per glyph.
 */
static inline void kmsvt_ink_bytes(const struct kmsvt_ink *ink, u8 __iomem *p,
				   const u8 *bits, u32 n)
{
	const u64 *w = ink->word;
	u32 i;

	if ((uintptr_t)p & 7) {
		for (i = 0; i < n; i++)
			kmsvt_ink_row8(ink, p + i * 8 * ink->cpp, bits[i]);
	} else if (ink->cpp == 4) {
		for (i = 0; i < n; i++, p += 32) {
			writeq(w[bits[i] >> 6], p);
			writeq(w[(bits[i] >> 4) & 3], p + 8);
			writeq(w[(bits[i] >> 2) & 3], p + 16);
			writeq(w[bits[i] & 3], p + 24);
		}
	} else if (ink->cpp == 2) {
		for (i = 0; i < n; i++, p += 16) {
			writeq(w[bits[i] >> 4], p);
			writeq(w[bits[i] & 15], p + 8);
		}
	} else {
		for (i = 0; i < n; i++, p += 8)
			writeq(w[bits[i] >> 4] | w[bits[i] & 15] << 32, p);
	}
}

/* Bytes a glyph row of @font takes: whole bytes, leftmost pixel in the top bit. */
static inline u32 kmsvt_font_pitch(const struct font_desc *font)
{
	return DIV_ROUND_UP(font->width, 8);
}

/* Row @gy of glyph @ch of @font. */
static inline const u8 *kmsvt_font_row(const struct font_desc *font, u32 ch, u32 gy)
{
	const u8 *data = font->data;

	return data + (ch * font->height + gy) * kmsvt_font_pitch(font);
}

/*
 * A glyph row (@bits, from kmsvt_font_row()) of a font @width pixels wide
 * at @p: whole bytes 8 bytes a store, the rest of a narrow or odd width
 * pixel by pixel.
 */
static inline void kmsvt_ink_glyph_row(const struct kmsvt_ink *ink, u8 __iomem *p,
				       const u8 *bits, u32 width)
{
	kmsvt_ink_bytes(ink, p, bits, width / 8);
	if (width % 8)
		kmsvt_ink_part(ink, p + (width & ~7u) * ink->cpp, bits[width / 8], width % 8);
}

/* @n pixels of @px from @p on, 8 bytes a store where aligned. */
static inline void kmsvt_fill_span(u8 __iomem *p, u32 cpp, u32 px, u32 n)
{
	u64 pat = cpp == 4 ? (u64)px << 32 | px :
		  cpp == 2 ? 0x0001000100010001ULL * (px & 0xffff) :
			     0x0101010101010101ULL * (px & 0xff);
	u8 __iomem *end = p + n * cpp;

	for (; p < end && ((uintptr_t)p & 7); p += cpp)
		kmsvt_put_px(p, cpp, px);
	for (; p + 8 <= end; p += 8)
		writeq(pat, p);
	for (; p < end; p += cpp)
		kmsvt_put_px(p, cpp, px);
}

#endif /* KMSVT_DRAW_H */
