// SPDX-License-Identifier: GPL-2.0
/*
 * The panic screens, one named function each, and the canvas they draw on:
 * whatever kmsvt was scanning out when the kernel panicked, in that
 * buffer's format.  panic_screen picks one:
 *
 *   log    the header and the log's last lines, newest at the bottom
 *   qr     the header and a QR code of the reason and the log's tail
 *   both   the log on the left, the QR code on the right
 *
 * A new screen is a function here, a name in kmsvt_screen_names and a case
 * in kmsvt_screen_draw() (a switch, not a table of pointers: the panic
 * path's check refuses indirect calls).  Sizes come from the font.
 * Panic path: no allocation, no lock.
 */
#include <linux/font.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/utsname.h>
#include <drm/drm_fourcc.h>

#include "draw/draw.h"
#include "panic.h"

#define COLOR_HEADER_BG	0xaa0000
#define COLOR_HEADER_FG	0xffffff
#define COLOR_BODY_BG	0x000040
#define COLOR_BODY_FG	0xe0e0e0

/*
 * The colours the screens use, which are also the palette of the 8 bpp
 * panic buffer: a C8 pixel is an index into this table.
 */
const u32 kmsvt_panic_colors[] = {
	0x000000, 0xffffff, COLOR_HEADER_BG, COLOR_BODY_BG, COLOR_BODY_FG,
};

const unsigned int kmsvt_panic_ncolors = ARRAY_SIZE(kmsvt_panic_colors);

/* Header rows: the title and the reason; then a blank row. */
#define HEADER_ROWS	2
#define BODY_TOP	(HEADER_ROWS + 1)

enum kmsvt_screen { KMSVT_SCREEN_LOG, KMSVT_SCREEN_QR, KMSVT_SCREEN_BOTH, KMSVT_SCREENS };

static const char * const kmsvt_screen_names[KMSVT_SCREENS] = {
	[KMSVT_SCREEN_LOG] = "log", [KMSVT_SCREEN_QR] = "qr", [KMSVT_SCREEN_BOTH] = "both",
};

static int panic_screen = KMSVT_SCREEN_LOG;

static int kmsvt_set_panic_screen(const char *val, const struct kernel_param *kp)
{
	int i;

	for (i = 0; i < KMSVT_SCREENS; i++) {
		if (sysfs_streq(val, kmsvt_screen_names[i])) {
			WRITE_ONCE(panic_screen, i);
			return 0;
		}
	}
	pr_err("kmsvt: panic_screen=%s is not supported (use log, qr or both)\n", val);
	return -EINVAL;
}

static int kmsvt_get_panic_screen(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", kmsvt_screen_names[READ_ONCE(panic_screen)]);
}

static const struct kernel_param_ops kmsvt_panic_screen_ops = {
	.set = kmsvt_set_panic_screen,
	.get = kmsvt_get_panic_screen,
};

module_param_cb(panic_screen, &kmsvt_panic_screen_ops, NULL, 0644);
MODULE_PARM_DESC(panic_screen, "what a panic shows: log (default), qr (QR code of the log) or both");

/* The screens' font: the kernel's built-in VGA font, always there. */
static const struct font_desc *const kmsvt_panic_font = &font_vga_8x16;

static u32 kmsvt_cols(const struct kmsvt_canvas *c)
{
	return c->width / kmsvt_panic_font->width;
}

static u32 kmsvt_rows(const struct kmsvt_canvas *c)
{
	return c->height / kmsvt_panic_font->height;
}

/* Too small for anything readable: a header and two lines of log. */
bool kmsvt_canvas_readable(const struct kmsvt_canvas *c)
{
	return kmsvt_cols(c) >= 16 && kmsvt_rows(c) >= BODY_TOP + 1;
}

/* The palette index of @rgb; all the screens' colours are in the table. */
static u32 kmsvt_pack_c8(u32 rgb)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(kmsvt_panic_colors); i++)
		if (kmsvt_panic_colors[i] == rgb)
			return i;
	return 0;
}

/* xrgb8888 to the canvas' pixel format */
static u32 kmsvt_pack(const struct kmsvt_canvas *c, u32 rgb)
{
	switch (c->format) {
	case DRM_FORMAT_C8:
		return kmsvt_pack_c8(rgb);
	case DRM_FORMAT_RGB565:
		return ((rgb >> 8) & 0xf800) | ((rgb >> 5) & 0x07e0) | ((rgb >> 3) & 0x001f);
	case DRM_FORMAT_XRGB1555:
		return ((rgb >> 9) & 0x7c00) | ((rgb >> 6) & 0x03e0) | ((rgb >> 3) & 0x001f);
	default:
		return rgb | 0xff000000;	/* opaque, should ARGB ever be blended */
	}
}

static void kmsvt_put(const struct kmsvt_canvas *c, u32 x, u32 y, u32 px)
{
	kmsvt_put_px(c->base + y * c->pitch + x * c->cpp, c->cpp, px);
}

/* Whole pixel rows: clearing is most of the work. */
static void kmsvt_fill(const struct kmsvt_canvas *c, u32 y0, u32 rows, u32 rgb)
{
	u32 px = kmsvt_pack(c, rgb), y;

	for (y = y0; y < y0 + rows && y < c->height; y++)
		kmsvt_fill_span(c->base + y * c->pitch, c->cpp, px, c->width);
}

/* Text rows [row, row + n) cleared. */
static void kmsvt_fill_rows(const struct kmsvt_canvas *c, u32 row, u32 n, u32 rgb)
{
	kmsvt_fill(c, row * kmsvt_panic_font->height, n * kmsvt_panic_font->height, rgb);
}

/*
 * Draw text row @row, cells [0, cells): s[0..len) in the cells from @col
 * on, background everywhere else, to the right edge when @cells is the
 * screen's width.  Every pixel is written once, so a text row costs about
 * as much as clearing it.
 */
static void kmsvt_text_row(const struct kmsvt_canvas *c, u32 row, u32 cells, u32 col,
			   const char *s, size_t len, u32 fg_rgb, u32 bg_rgb)
{
	const struct font_desc *font = kmsvt_panic_font;
	static const u8 blank[4];	/* background for fonts up to 32 pixels wide */
	u32 fw = font->width, gy, cell, x;
	bool to_edge = cells >= kmsvt_cols(c);
	struct kmsvt_ink ink;

	kmsvt_ink_init(&ink, c->cpp, kmsvt_pack(c, fg_rgb), kmsvt_pack(c, bg_rgb));
	cells = min(cells, kmsvt_cols(c));
	col = min(col, cells);
	len = min_t(size_t, len, cells - col);
	for (gy = 0; gy < font->height && row * font->height + gy < c->height; gy++) {
		u32 y = row * font->height + gy, step = fw * c->cpp;
		u8 __iomem *p = c->base + y * c->pitch;

		for (cell = 0; cell < col; cell++, p += step)
			kmsvt_ink_glyph_row(&ink, p, blank, fw);
		for (; cell < col + len; cell++, p += step) {
			const u8 *bits = kmsvt_font_row(font, (u8)s[cell - col], gy);

			kmsvt_ink_glyph_row(&ink, p, bits, fw);
		}
		for (; cell < cells; cell++, p += step)
			kmsvt_ink_glyph_row(&ink, p, blank, fw);
		for (x = cells * fw; to_edge && x < c->width; x++)
			kmsvt_put(c, x, y, ink.bg);
	}
}

/*
 * Draw the lines of log[0..len) wrapped to @cols, newest at the bottom, into
 * text rows [top, bottom); rows left over are cleared.  Walks backwards, so
 * it never needs more than the text itself.
 */
static void kmsvt_draw_log(const struct kmsvt_canvas *c, const char *log, size_t len,
			   u32 top, u32 bottom, u32 cols, u32 fg, u32 bg)
{
	u32 row = bottom;
	const char *end = log + len;

	while (end > log && row > top) {
		const char *start = end;
		u32 lines, i;

		while (start > log && start[-1] != '\n')
			start--;
		if (kmsvt_line_unreliable(start, end)) {
			end = start > log ? start - 1 : log;
			continue;
		}
		lines = max_t(u32, 1, DIV_ROUND_UP(end - start, cols));
		for (i = lines; i-- > 0 && row > top;) {
			size_t off = (size_t)i * cols;

			row--;
			kmsvt_text_row(c, row, cols, 0, start + off,
				       min_t(size_t, cols, end - start - off), fg, bg);
		}
		end = start > log ? start - 1 : log;
	}
	kmsvt_fill_rows(c, top, row - top, bg);
}

static void kmsvt_draw_header(struct kmsvt_panic *kp, const struct kmsvt_canvas *c,
			      const char *title)
{
	const char *reason = kp->reason ? kp->reason : "";
	u32 cells = kmsvt_cols(c);
	size_t n;

	n = scnprintf(kp->line, sizeof(kp->line), "%s - Linux %s - kmsvt", title,
		      init_utsname()->release);
	kmsvt_text_row(c, 0, cells, 1, kp->line, n, COLOR_HEADER_FG, COLOR_HEADER_BG);
	n = strcspn(reason, "\n");
	kmsvt_text_row(c, 1, cells, 1, reason, n, COLOR_HEADER_FG, COLOR_HEADER_BG);
}

/*
 * QR payload: the panic reason and kernel release, then as much of the log
 * tail as the version holds, starting at a line boundary.
 */
static size_t kmsvt_qr_payload(struct kmsvt_panic *kp, size_t len, size_t cap)
{
	const char *reason = kp->reason ? kp->reason : "";
	size_t n, tail;
	const char *start;

	n = scnprintf(kp->line, sizeof(kp->line), "KERNEL PANIC: %.*s\nLinux %s\n",
		      (int)strcspn(reason, "\n"), reason, init_utsname()->release);
	n = min(n, cap);
	memcpy(kp->qr_data, kp->line, n);

	len = kmsvt_compact_log(kp->log, len);
	tail = min(len, cap - n);
	start = kp->log + len - tail;
	if (tail < len) {
		const char *nl = memchr(start, '\n', tail);

		if (nl)
			start = nl + 1;
	}
	tail = kp->log + len - start;
	memcpy(kp->qr_data + n, start, tail);
	return n + tail;
}

/*
 * Encode the QR code for a square of side @px: the biggest modules (at least
 * 2 pixels, at most KMSVT_QR_MAX_SCALE) for which the payload fits.
 * Returns the symbol's size in modules, 0 if none fits, and the pixels a
 * module in *scale.
 */
static int kmsvt_encode_qr(struct kmsvt_panic *kp, size_t len, u32 px, u32 *scale)
{
	int version = 0, size;
	size_t n;

	for (*scale = KMSVT_QR_MAX_SCALE; *scale >= 2; (*scale)--) {
		version = kmsvt_qr_fit_version(px, *scale);
		if (version && (version == KMSVT_QR_MAX_VERSION ||
				kmsvt_qr_max_bytes(version) >= len + sizeof(kp->line)))
			break;
	}
	if (!version)
		return 0;
	n = kmsvt_qr_payload(kp, len, kmsvt_qr_max_bytes(version));
	size = kmsvt_qr_encode(kp->qr_data, n, kp->qr_work, sizeof(kp->qr_work),
			       kp->qr_modules, sizeof(kp->qr_modules));
	return max(size, 0);
}

/* Side in pixels of a symbol of @size modules with its quiet zone. */
static u32 kmsvt_qr_side(int size, u32 scale)
{
	return (size + 2 * KMSVT_QR_QUIET_ZONE) * scale;
}

/*
 * Module row @my of the symbol (@size modules, quiet zone included) as a
 * row of pixel bits, @scale a module, dark set, leftmost in the top bit:
 * the form a glyph row has, so that it is drawn the way text is.
 */
static void kmsvt_qr_row_bits(const u8 *modules, int size, int my, u32 scale, u8 *bits)
{
	u32 acc = 0, n = 0, ones = (1u << scale) - 1, i = (u32)my * size;
	int mx;

	for (mx = -KMSVT_QR_QUIET_ZONE; mx < size + KMSVT_QR_QUIET_ZONE; mx++) {
		bool dark = false;

		if (mx >= 0 && mx < size) {
			dark = (modules[i >> 3] >> (i & 7)) & 1;
			i++;
		}
		/* n < 8 and scale <= 8: at most one whole byte a module. */
		acc = acc << scale | (dark ? ones : 0);
		n += scale;
		if (n >= 8) {
			n -= 8;
			*bits++ = acc >> n;
		}
	}
	if (n)
		*bits = acc << (8 - n);
}

/*
 * Draw the encoded symbol at (x0, y0): each row of modules is made into
 * pixel bits once and drawn @scale times, 8 bytes a store where the row is
 * aligned; the quiet zone's rows are plain fills.
 */
static void kmsvt_draw_qr(struct kmsvt_panic *kp, const struct kmsvt_canvas *c, int size,
			  u32 scale, u32 x0, u32 y0)
{
	u32 white = kmsvt_pack(c, 0xffffff), side = kmsvt_qr_side(size, scale), r;
	u8 __iomem *p = c->base + y0 * c->pitch + x0 * c->cpp;
	struct kmsvt_ink ink;
	int my;

	kmsvt_ink_init(&ink, c->cpp, kmsvt_pack(c, 0), white);
	for (my = -KMSVT_QR_QUIET_ZONE; my < size + KMSVT_QR_QUIET_ZONE; my++) {
		bool quiet = my < 0 || my >= size;

		if (!quiet)
			kmsvt_qr_row_bits(kp->qr_modules, size, my, scale, kp->qr_row);
		for (r = 0; r < scale; r++, p += c->pitch) {
			if (quiet)
				kmsvt_fill_span(p, c->cpp, white, side);
			else
				kmsvt_ink_glyph_row(&ink, p, kp->qr_row, side);
		}
	}
}

/*
 * Pixel rows from @y_top down cleared, but for the square of side @side at
 * (x0, y0) that the QR code covers: each pixel is written once.
 */
static void kmsvt_fill_around(const struct kmsvt_canvas *c, u32 y_top, u32 x0, u32 y0,
			      u32 side, u32 rgb)
{
	u32 px = kmsvt_pack(c, rgb), y;

	for (y = y_top; y < c->height; y++) {
		u8 __iomem *row = c->base + y * c->pitch;

		if (y < y0 || y >= y0 + side) {
			kmsvt_fill_span(row, c->cpp, px, c->width);
			continue;
		}
		kmsvt_fill_span(row, c->cpp, px, x0);
		kmsvt_fill_span(row + (x0 + side) * c->cpp, c->cpp, px, c->width - x0 - side);
	}
}

/* The log in the first @cols columns of the body, the panic message kept. */
static void kmsvt_body_log(struct kmsvt_panic *kp, const struct kmsvt_canvas *c, size_t len,
			   u32 cols)
{
	u32 rows = kmsvt_rows(c);

	kmsvt_draw_log(c, kp->log, kmsvt_log_keep_panic(kp->log, len, cols, rows - BODY_TOP),
		       BODY_TOP, rows, cols, COLOR_BODY_FG, COLOR_BODY_BG);
}

/*
 * The log screen: the text rows cover the body, each pixel written once;
 * only the blank row under the header and the pixels below the last text
 * row are cleared.
 */
static void kmsvt_screen_log(struct kmsvt_panic *kp, const struct kmsvt_canvas *c, size_t len)
{
	u32 fh = kmsvt_panic_font->height, rows = kmsvt_rows(c);

	kmsvt_fill_rows(c, HEADER_ROWS, 1, COLOR_BODY_BG);
	kmsvt_fill(c, rows * fh, c->height - rows * fh, COLOR_BODY_BG);
	kmsvt_body_log(kp, c, len, kmsvt_cols(c));
}

/* The body under the header, for the screens with a QR code. */
static u32 kmsvt_body_height(const struct kmsvt_canvas *c)
{
	return c->height - BODY_TOP * kmsvt_panic_font->height;
}

/*
 * The QR screen: the code as large as the body allows, at the right.  It is
 * encoded first, so that the body's fill can leave its square out.
 */
static void kmsvt_screen_qr(struct kmsvt_panic *kp, const struct kmsvt_canvas *c, size_t len)
{
	u32 px = min(kmsvt_body_height(c), c->width), fh = kmsvt_panic_font->height;
	u32 x0 = c->width - px, y0 = BODY_TOP * fh, scale, side = 0;
	int size = kmsvt_encode_qr(kp, len, px, &scale);

	if (size)
		side = kmsvt_qr_side(size, scale);
	kmsvt_fill_around(c, HEADER_ROWS * fh, x0, y0, side, COLOR_BODY_BG);
	if (size)
		kmsvt_draw_qr(kp, c, size, scale, x0, y0);
}

/* Both: the log keeps the left part of the screen, the QR code the right. */
static void kmsvt_screen_both(struct kmsvt_panic *kp, const struct kmsvt_canvas *c, size_t len)
{
	u32 fw = kmsvt_panic_font->width, fh = kmsvt_panic_font->height;
	u32 qr_px = min(kmsvt_body_height(c), c->width / 2), cols, px, scale;
	int size;

	kmsvt_fill_rows(c, HEADER_ROWS, kmsvt_rows(c), COLOR_BODY_BG);
	cols = (c->width - qr_px) / fw;
	/* The log's text is written before the QR code, which reads it. */
	kmsvt_body_log(kp, c, len, cols);
	px = min(kmsvt_body_height(c), c->width - cols * fw);
	size = kmsvt_encode_qr(kp, len, px, &scale);
	if (size)
		kmsvt_draw_qr(kp, c, size, scale, c->width - px, BODY_TOP * fh);
}

/* The screen panic_screen names, with the header; the log is read first. */
void kmsvt_screen_draw(struct kmsvt_panic *kp, const struct kmsvt_canvas *c, const char *title)
{
	size_t len = kmsvt_read_log(kp);

	kmsvt_draw_header(kp, c, title);
	switch (READ_ONCE(panic_screen)) {
	case KMSVT_SCREEN_QR:
		kmsvt_screen_qr(kp, c, len);
		break;
	case KMSVT_SCREEN_BOTH:
		kmsvt_screen_both(kp, c, len);
		break;
	default:
		kmsvt_screen_log(kp, c, len);
		break;
	}
}

/* The oops banner's height in pixels. */
u32 kmsvt_screen_banner_height(void)
{
	return BODY_TOP * kmsvt_panic_font->height;
}

/*
 * The oops banner, over the top of what is on screen: a title and the last
 * two log lines (usually the oops' location).
 */
void kmsvt_screen_banner(struct kmsvt_panic *kp, const struct kmsvt_canvas *c)
{
	size_t len = kmsvt_read_log(kp), n;

	n = scnprintf(kp->line, sizeof(kp->line), "Oops - Linux %s - the system is still running",
		      init_utsname()->release);
	kmsvt_text_row(c, 0, kmsvt_cols(c), 1, kp->line, n, COLOR_HEADER_FG, COLOR_HEADER_BG);
	kmsvt_draw_log(c, kp->log, len, 1, BODY_TOP, kmsvt_cols(c), COLOR_BODY_FG,
		       COLOR_HEADER_BG);
}
