// SPDX-License-Identifier: GPL-2.0
/*
 * Drawing kmsvt's VT console: the foreground VT's cells into the console's
 * buffer, only those that differ from what was drawn last, 8 bytes a store
 * (draw/draw.h).  The text may be turned as fbcon=rotate turns it; the
 * font is then turned once, when it is set.  Called with the console lock
 * held, from the console's worker (con.c).
 */
#include <linux/bitrev.h>
#include <linux/console.h>
#include <linux/fb.h>
#include <linux/slab.h>
#include <linux/tty.h>
#include <linux/vt_buffer.h>
#include <linux/vt_kern.h>
#include <linux/console_struct.h>

#include "kmsvt_drv.h"
#include "draw/draw.h"
#include "con.h"

/* The text's size in pixels: the screen's, turned. */
static u32 kmsvt_con_text_width(const struct kmsvt_con *con)
{
	return con->rotate & 1 ? con->info->var.yres : con->info->var.xres;
}

u32 kmsvt_con_text_height(const struct kmsvt_con *con)
{
	return con->rotate & 1 ? con->info->var.xres : con->info->var.yres;
}

u32 kmsvt_con_cols(const struct kmsvt_con *con)
{
	return kmsvt_con_text_width(con) / con->font.width;
}

u32 kmsvt_con_rows(const struct kmsvt_con *con)
{
	return kmsvt_con_text_height(con) / con->font.height;
}

static u32 kmsvt_con_pack(const struct fb_var_screeninfo *var, const unsigned char *rgb)
{
	return (rgb[0] >> (8 - var->red.length)) << var->red.offset |
	       (rgb[1] >> (8 - var->green.length)) << var->green.offset |
	       (rgb[2] >> (8 - var->blue.length)) << var->blue.offset;
}

/* Rows of the cursor at the bottom of a cell, as fbcon draws them. */
static u32 kmsvt_con_cursor_rows(const struct vc_data *vc, u32 height)
{
	switch (CUR_SIZE(vc->vc_cursor_type)) {
	case CUR_NONE:
		return 0;
	case CUR_LOWER_THIRD:
		return height / 3;
	case CUR_LOWER_HALF:
		return height / 2;
	case CUR_TWO_THIRDS:
		return height * 2 / 3;
	case CUR_BLOCK:
		return height;
	default:			/* CUR_DEF, CUR_UNDERLINE */
		return height < 10 ? 1 : 2;
	}
}

/*
 * Text coordinates to the screen's: the text is turned as fbcon turns it
 * with rotate=1 (clockwise), 2 (upside down) or 3 (counter-clockwise).
 * A rectangle of the text, @r, becomes one of the screen.
 */
static void kmsvt_con_turn_rect(const struct kmsvt_con *con, struct kmsvt_con_rect *r)
{
	const struct fb_var_screeninfo *var = &con->info->var;
	struct kmsvt_con_rect t = *r;

	switch (con->rotate) {
	case FB_ROTATE_CW:
		*r = (struct kmsvt_con_rect){ var->xres - t.y - t.h, t.x, t.h, t.w };
		break;
	case FB_ROTATE_UD:
		*r = (struct kmsvt_con_rect){ var->xres - t.x - t.w, var->yres - t.y - t.h,
					      t.w, t.h };
		break;
	case FB_ROTATE_CCW:
		*r = (struct kmsvt_con_rect){ t.y, var->yres - t.x - t.w, t.h, t.w };
		break;
	}
}

/*
 * Glyph rows @g (8 pixels wide, @h high) as the screen shows them turned:
 * rows of up to 32 pixels in @out; returns how many.
 */
static u32 kmsvt_con_turn_glyph(const u8 *g, u32 h, u32 rotate, u8 out[][4])
{
	u32 i, j;

	if (rotate == FB_ROTATE_UD) {
		for (i = 0; i < h; i++)
			out[i][0] = bitrev8(g[h - 1 - i]);
		return h;
	}
	/* Screen row j is a column of the glyph: bottom up (CW) or top down (CCW). */
	for (j = 0; j < 8; j++) {
		memset(out[j], 0, sizeof(out[j]));
		for (i = 0; i < h; i++) {
			u8 bits = rotate == FB_ROTATE_CW ? g[h - 1 - i] : g[i];
			u8 col = rotate == FB_ROTATE_CW ? 0x80 >> j : 1 << j;

			if (bits & col)
				out[j][i / 8] |= 0x80 >> (i % 8);
		}
	}
	return 8;
}

void kmsvt_con_font_free(struct kmsvt_con *con)
{
	kfree(con->font.own);
	kfree(con->font.turned);
	con->font.own = NULL;
	con->font.turned = NULL;
}

/*
 * Draw with @data (@height rows a glyph; @own: allocated, the console's to
 * free) from now on.  A turned screen gets every glyph turned here, once,
 * as fbcon turns its font once: drawing a cell then copies rows.
 */
int kmsvt_con_font_use(struct kmsvt_con *con, const u8 *data, u32 height, u8 *own)
{
	u8 (*turned)[4] = NULL;
	u32 rows = 0, c;

	if (con->rotate != FB_ROTATE_UR) {
		turned = kmalloc_array(256 * KMSVT_CON_FONT_MAX_HEIGHT, sizeof(*turned),
				       GFP_KERNEL);
		if (!turned) {
			kfree(own);
			return -ENOMEM;
		}
		for (c = 0; c < 256; c++)
			rows = kmsvt_con_turn_glyph(data + c * height, height, con->rotate,
						    turned + c * KMSVT_CON_FONT_MAX_HEIGHT);
	}
	kmsvt_con_font_free(con);
	con->font.width = KMSVT_CON_FONT_WIDTH;
	con->font.data = data;
	con->font.height = height;
	con->font.own = own;
	con->font.turned = (u8 *)turned;
	con->font.turned_rows = rows;
	return 0;
}

/* The lowest @cursor rows of a glyph @h high inverted, in turned row @row. */
static void kmsvt_con_cursor_turned(u32 rotate, u32 row, u32 h, u32 cursor, u8 bits[4])
{
	u32 from = 0, to = h, i;

	if (rotate == FB_ROTATE_UD) {		/* the glyph's bottom rows are on top */
		if (row < cursor)
			bits[0] = ~bits[0];
		return;
	}
	if (rotate == FB_ROTATE_CW)		/* its bottom is the row's left end */
		to = cursor;
	else					/* its bottom is the row's right end */
		from = h - cursor;
	for (i = from; i < to; i++)
		bits[i / 8] ^= 0x80 >> (i % 8);
}

/*
 * One cell: glyph @c in its colours, the lowest @cursor rows inverted.
 * @ink is the caller's, re-made only when the colours change.  Upright
 * text is drawn straight from the font, turned text from the font's turned
 * glyphs, a glyph row a pixel row.
 */
static void kmsvt_con_draw_cell(struct kmsvt_con *con, struct kmsvt_ink *ink,
				const struct kmsvt_con_rect *cell, u16 c, u32 cursor)
{
	const struct fb_info *info = con->info;
	u32 h = con->font.height, pitch = info->fix.line_length, cpp = ink->cpp, r;
	u32 fg = con->palette[(c >> 8) & 15], bg = con->palette[(c >> 12) & 15];
	u8 __iomem *p = info->screen_base + cell->y * pitch + cell->x * cpp;
	const u8 *glyph;
	u8 bits[4];

	if (ink->fg != fg || ink->bg != bg)
		kmsvt_ink_init(ink, cpp, fg, bg);
	if (con->rotate == FB_ROTATE_UR) {
		glyph = con->font.data + (c & 0xff) * h;
		for (r = 0; r < h; r++, p += pitch)
			kmsvt_ink_row8(ink, p, r >= h - cursor ? ~glyph[r] : glyph[r]);
		return;
	}
	glyph = con->font.turned + (c & 0xff) * KMSVT_CON_FONT_MAX_HEIGHT * 4;
	for (r = 0; r < con->font.turned_rows; r++, p += pitch) {
		memcpy(bits, glyph + r * 4, 4);
		if (cursor)
			kmsvt_con_cursor_turned(con->rotate, r, h, cursor, bits);
		kmsvt_ink_glyph_row(ink, p, bits, cell->w);
	}
}

/* Black over a rectangle of the text, except where the oops banner is. */
static void kmsvt_con_clear_rect(struct kmsvt_con *con, struct kmsvt_con_rect r)
{
	const struct fb_info *info = con->info;
	u32 cpp = info->var.bits_per_pixel / 8, pitch = info->fix.line_length, y;

	kmsvt_con_turn_rect(con, &r);
	for (y = max(r.y, con->shown_banner); y < r.y + r.h; y++)
		kmsvt_fill_span(info->screen_base + y * pitch + r.x * cpp, cpp, 0, r.w);
}

/* The strips right of and below the cells: black, as after a mode change. */
static void kmsvt_con_clear_margins(struct kmsvt_con *con)
{
	u32 tw = kmsvt_con_text_width(con), th = kmsvt_con_text_height(con);
	u32 w = con->shown_cols * con->font.width, h = con->shown_rows * con->font.height;

	kmsvt_con_clear_rect(con, (struct kmsvt_con_rect){ w, 0, tw - w, h });
	kmsvt_con_clear_rect(con, (struct kmsvt_con_rect){ 0, h, tw, th - h });
}

/* Start over: a new VT, mode, font, palette or banner. */
static bool kmsvt_con_reset(struct kmsvt_con *con, struct vc_data *vc, u32 banner)
{
	u32 cols = kmsvt_con_cols(con), rows = kmsvt_con_rows(con), i;

	if (cols * rows != con->shown_cols * con->shown_rows) {
		kfree(con->shown);
		con->shown = kmalloc_array(cols * rows, sizeof(*con->shown), GFP_KERNEL);
		if (!con->shown) {
			con->shown_cols = 0;
			con->shown_rows = 0;
			return false;
		}
	}
	con->shown_cols = cols;
	con->shown_rows = rows;
	con->shown_banner = banner;
	for (i = 0; i < 16; i++)
		con->palette[i] = kmsvt_con_pack(&con->info->var, vc->vc_palette + 3 * i);
	/* A glyph and colours no cell has: every cell is drawn. */
	memset(con->shown, 0xff, cols * rows * sizeof(*con->shown));
	con->cursor_x = -1;
	con->cursor_y = -1;
	con->shown_vc = vc->vc_num;
	kmsvt_con_clear_margins(con);
	return true;
}

static bool kmsvt_con_palette_changed(const struct kmsvt_con *con, const struct vc_data *vc)
{
	u32 i;

	for (i = 0; i < 16; i++)
		if (con->palette[i] != kmsvt_con_pack(&con->info->var, vc->vc_palette + 3 * i))
			return true;
	return false;
}

/* Where the cursor is to be drawn now, and how many rows; rows 0 for none. */
static void kmsvt_con_cursor_at(const struct kmsvt_con *con, const struct vc_data *vc,
				int *x, int *y, u32 *rows)
{
	*rows = 0;
	*x = -1;
	*y = -1;
	if (!con->cursor_on || vc->state.x >= con->shown_cols || vc->state.y >= con->shown_rows)
		return;
	*rows = kmsvt_con_cursor_rows(vc, con->font.height);
	if (*rows) {
		*x = vc->state.x;
		*y = vc->state.y;
	}
}

/* A cell drawn again next time, whatever it holds. */
static void kmsvt_con_forget(struct kmsvt_con *con, int x, int y)
{
	if (x >= 0)
		con->shown[y * con->shown_cols + x] = 0xffff;
}

static void kmsvt_con_draw_cells(struct kmsvt_con *con, struct vc_data *vc)
{
	u32 cols = min(con->shown_cols, vc->vc_cols), rows = min(con->shown_rows, vc->vc_rows);
	struct kmsvt_ink ink = { .cpp = con->info->var.bits_per_pixel / 8, .fg = 1, .bg = 1 };
	const u16 *cells = (const u16 *)vc->vc_origin;
	struct kmsvt_con_rect cell;
	int cx, cy;
	u32 crows, x, y;

	kmsvt_con_cursor_at(con, vc, &cx, &cy, &crows);
	if (cx != con->cursor_x || cy != con->cursor_y || crows != con->cursor_rows) {
		kmsvt_con_forget(con, con->cursor_x, con->cursor_y);
		kmsvt_con_forget(con, cx, cy);
		con->cursor_x = cx;
		con->cursor_y = cy;
		con->cursor_rows = crows;
	}
	for (y = 0; y < rows; y++) {
		const u16 *row = cells + y * vc->vc_cols;
		u16 *was = con->shown + y * con->shown_cols;

		for (x = 0; x < cols; x++) {
			u16 c = scr_readw(row + x);

			if (c == was[x])
				continue;
			cell = (struct kmsvt_con_rect){ x * con->font.width, y * con->font.height,
							con->font.width, con->font.height };
			kmsvt_con_turn_rect(con, &cell);
			/* Cells the oops banner covers are left to it, whole. */
			if (cell.y < con->shown_banner)
				continue;
			was[x] = c;
			kmsvt_con_draw_cell(con, &ink, &cell, c, x == cx && y == cy ? crows : 0);
		}
	}
}

/*
 * Draw @vc's cells that changed since the last drawing; start over first
 * when the VT, the mode, the font, the palette or the oops banner did.
 */
void kmsvt_con_draw_vc(struct kmsvt_con *con, struct vc_data *vc, u32 banner)
{
	if ((con->shown_vc != vc->vc_num || con->shown_banner != banner ||
	     con->shown_cols != kmsvt_con_cols(con) || con->shown_rows != kmsvt_con_rows(con) ||
	     kmsvt_con_palette_changed(con, vc)) && !kmsvt_con_reset(con, vc, banner))
		return;
	kmsvt_con_draw_cells(con, vc);
}
