// SPDX-License-Identifier: GPL-2.0
/*
 * Drawing kmsvt's VT console: the foreground VT's cells into the console's
 * buffer, only those that differ from what was drawn last, 8 bytes a store
 * (draw/draw.h), in the VT's font.  The text may be turned as fbcon=rotate
 * turns it; the font is then turned once, when it is made (con_font.c).
 * Called with the console lock held, from the console's worker (con.c).
 */
#include <linux/console.h>
#include <linux/fb.h>
#include <linux/selection.h>
#include <linux/slab.h>
#include <linux/tty.h>
#include <linux/vt_buffer.h>
#include <linux/vt_kern.h>
#include <linux/console_struct.h>

#include "kmsvt_drv.h"
#include "draw/draw.h"
#include "con.h"

/* The text's size in pixels: the screen's, turned. */
u32 kmsvt_con_text_width(const struct kmsvt_con *con)
{
	return con->rotate & 1 ? con->info->var.yres : con->info->var.xres;
}

u32 kmsvt_con_text_height(const struct kmsvt_con *con)
{
	return con->rotate & 1 ? con->info->var.xres : con->info->var.yres;
}

/* The cells of @font that fit: the text grid follows the font. */
u32 kmsvt_con_cols(const struct kmsvt_con *con, const struct kmsvt_con_font *font)
{
	return kmsvt_con_text_width(con) / font->width;
}

u32 kmsvt_con_rows(const struct kmsvt_con *con, const struct kmsvt_con_font *font)
{
	return kmsvt_con_text_height(con) / font->height;
}

static u32 kmsvt_con_pack(const struct fb_var_screeninfo *var, const unsigned char *rgb)
{
	return (rgb[0] >> (8 - var->red.length)) << var->red.offset |
	       (rgb[1] >> (8 - var->green.length)) << var->green.offset |
	       (rgb[2] >> (8 - var->blue.length)) << var->blue.offset;
}

/*
 * @vc's colours packed, by the number the cells carry: the VT's palette is
 * in ANSI order, the cells' colours in VGA order, and color_table maps one
 * to the other, as in fbcon_set_palette().
 */
static void kmsvt_con_palette(const struct kmsvt_con *con, const struct vc_data *vc,
			      u32 palette[16])
{
	u32 i;

	for (i = 0; i < 16; i++)
		palette[color_table[i]] = kmsvt_con_pack(&con->info->var, vc->vc_palette + 3 * i);
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

/* Bits @from to @to (excluded) of a glyph row inverted. */
static void kmsvt_con_invert_bits(u8 *bits, u32 from, u32 to)
{
	u32 i;

	for (i = from; i < to; i++)
		bits[i / 8] ^= 0x80 >> (i % 8);
}

/*
 * Row @row of a glyph as the screen shows it, with the lowest @cursor rows
 * of the glyph inverted: the bottom rows upright, the top ones upside
 * down, the left end of every row turned clockwise, the right end counter-
 * clockwise.
 */
static void kmsvt_con_cursor_row(u32 rotate, const struct kmsvt_con_font *font, u32 row,
				 u32 cursor, u8 *bits)
{
	switch (rotate) {
	case FB_ROTATE_UR:
		if (row >= font->gh - cursor)
			kmsvt_con_invert_bits(bits, 0, font->gw);
		break;
	case FB_ROTATE_UD:
		if (row < cursor)
			kmsvt_con_invert_bits(bits, 0, font->gw);
		break;
	case FB_ROTATE_CW:
		kmsvt_con_invert_bits(bits, 0, cursor);
		break;
	default:
		kmsvt_con_invert_bits(bits, font->gw - cursor, font->gw);
		break;
	}
}

/*
 * One cell: glyph @glyph of @font in its colours, the lowest @cursor rows
 * inverted.  @ink is the caller's, re-made only when the colours change.
 * The glyphs are as the screen shows them (con_font.c): a glyph row is a
 * pixel row, 8 pixels a byte, and a font 8 wide takes one 8-byte-store
 * path per row.
 */
static void kmsvt_con_draw_cell(struct kmsvt_con *con, const struct kmsvt_con_font *font,
				struct kmsvt_ink *ink, const struct kmsvt_con_rect *cell,
				u32 glyph, u32 fg, u32 bg, u32 cursor)
{
	const struct fb_info *info = con->info;
	u32 pitch = info->fix.line_length, gp = font->gpitch, r;
	u8 __iomem *p = info->screen_base + cell->y * pitch + cell->x * ink->cpp;
	const u8 *rows = font->glyphs + glyph * font->gh * gp;
	u8 bits[4];			/* a row: at most 32 pixels, either way */

	BUILD_BUG_ON(KMSVT_CON_FONT_MAX_WIDTH > 32 || KMSVT_CON_FONT_MAX_HEIGHT > 32);
	if (ink->fg != fg || ink->bg != bg)
		kmsvt_ink_init(ink, ink->cpp, fg, bg);
	for (r = 0; r < font->gh; r++, p += pitch, rows += gp) {
		const u8 *row = rows;

		if (cursor) {
			memcpy(bits, rows, gp);
			kmsvt_con_cursor_row(con->rotate, font, r, cursor, bits);
			row = bits;
		}
		if (font->gw == 8)
			kmsvt_ink_row8(ink, p, *row);
		else
			kmsvt_ink_glyph_row(ink, p, row, font->gw);
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
static void kmsvt_con_clear_margins(struct kmsvt_con *con, const struct kmsvt_con_font *font)
{
	u32 tw = kmsvt_con_text_width(con), th = kmsvt_con_text_height(con);
	u32 w = con->shown_cols * font->width, h = con->shown_rows * font->height;

	kmsvt_con_clear_rect(con, (struct kmsvt_con_rect){ w, 0, tw - w, h });
	kmsvt_con_clear_rect(con, (struct kmsvt_con_rect){ 0, h, tw, th - h });
}

/* No cell holds this: a cell shown as it is drawn again. */
#define KMSVT_CON_NOT_SHOWN U32_MAX

/* Start over: a new VT, mode, font, palette or banner. */
static bool kmsvt_con_reset(struct kmsvt_con *con, struct vc_data *vc,
			    const struct kmsvt_con_font *font, u32 banner)
{
	u32 cols = kmsvt_con_cols(con, font), rows = kmsvt_con_rows(con, font), i;

	if (cols * rows != con->shown_cols * con->shown_rows || !con->shown) {
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
	con->shown_font = font;
	kmsvt_con_palette(con, vc, con->palette);
	for (i = 0; i < cols * rows; i++)
		con->shown[i] = KMSVT_CON_NOT_SHOWN;
	con->cursor_x = -1;
	con->cursor_y = -1;
	con->shown_vc = vc->vc_num;
	kmsvt_con_clear_margins(con, font);
	return true;
}

static bool kmsvt_con_palette_changed(const struct kmsvt_con *con, const struct vc_data *vc)
{
	u32 palette[16];

	kmsvt_con_palette(con, vc, palette);
	return memcmp(palette, con->palette, sizeof(palette));
}

/*
 * Where the cursor is to be drawn now, and how many rows; rows 0 for none
 * (and none in the off half of a blink or while scrolled back).
 */
static void kmsvt_con_cursor_at(const struct kmsvt_con *con, const struct vc_data *vc,
				const struct kmsvt_con_back *back, int *x, int *y, u32 *rows)
{
	*rows = 0;
	*x = -1;
	*y = -1;
	if (!con->cursor_on || con->blink_off || (back && back->offset) ||
	    vc->state.x >= con->shown_cols || vc->state.y >= con->shown_rows)
		return;
	*rows = kmsvt_con_cursor_rows(vc, con->shown_font->height);
	if (*rows) {
		*x = vc->state.x;
		*y = vc->state.y;
	}
}

/* A cell drawn again next time, whatever it holds. */
static void kmsvt_con_forget(struct kmsvt_con *con, int x, int y)
{
	if (x >= 0)
		con->shown[y * con->shown_cols + x] = KMSVT_CON_NOT_SHOWN;
}

/*
 * A cell's glyph and colours: with 512 glyphs (vc_hi_font_mask) the
 * glyph takes a ninth bit and the colours move up one, as fbcon reads them.
 */
static void kmsvt_con_cell(const struct kmsvt_con *con, const struct vc_data *vc, u16 c,
			   u32 *glyph, u32 *fg, u32 *bg)
{
	u32 hi = vc->vc_hi_font_mask ? 1 : 0;

	*glyph = c & (hi ? 0x1ff : 0xff);
	*fg = con->palette[(c >> (8 + hi)) & 15];
	*bg = con->palette[(c >> (12 + hi)) & 15];
}

/*
 * Row @y of what the screen shows: scrolled back @back->offset rows, the
 * top rows come from the scrollback and the VT's own move down.
 */
static const u16 *kmsvt_con_row(const struct vc_data *vc, const struct kmsvt_con_back *back,
				u32 y)
{
	u32 offset = back ? back->offset : 0;

	if (y < offset)
		return kmsvt_con_back_row(back, offset - y);
	return (const u16 *)vc->vc_origin + (y - offset) * vc->vc_cols;
}

static void kmsvt_con_draw_cells(struct kmsvt_con *con, struct vc_data *vc,
				 const struct kmsvt_con_back *back)
{
	const struct kmsvt_con_font *font = con->shown_font;
	u32 cols = min(con->shown_cols, vc->vc_cols), rows = min(con->shown_rows, vc->vc_rows);
	struct kmsvt_ink ink;
	struct kmsvt_con_rect cell;
	u32 crows, x, y, glyph, fg, bg;
	int cx, cy;

	kmsvt_ink_init(&ink, con->info->var.bits_per_pixel / 8, con->palette[0], con->palette[0]);
	kmsvt_con_cursor_at(con, vc, back, &cx, &cy, &crows);
	if (cx != con->cursor_x || cy != con->cursor_y || crows != con->cursor_rows) {
		kmsvt_con_forget(con, con->cursor_x, con->cursor_y);
		kmsvt_con_forget(con, cx, cy);
		con->cursor_x = cx;
		con->cursor_y = cy;
		con->cursor_rows = crows;
	}
	for (y = 0; y < rows; y++) {
		const u16 *row = kmsvt_con_row(vc, back, y);
		u32 *was = con->shown + y * con->shown_cols;

		for (x = 0; x < cols; x++) {
			u16 c = scr_readw(row + x);

			if (c == was[x])
				continue;
			cell = (struct kmsvt_con_rect){ x * font->width, y * font->height,
							font->width, font->height };
			kmsvt_con_turn_rect(con, &cell);
			/* Cells the oops banner covers are left to it, whole. */
			if (cell.y < con->shown_banner)
				continue;
			was[x] = c;
			kmsvt_con_cell(con, vc, c, &glyph, &fg, &bg);
			kmsvt_con_draw_cell(con, font, &ink, &cell, glyph, fg, bg,
					    x == cx && y == cy ? crows : 0);
		}
	}
}

/*
 * Draw @vc's cells in @font (scrolled back as @back says, if not NULL)
 * that changed since the last drawing; start over first when the VT, the
 * mode, the font, the palette or the oops banner did.
 */
void kmsvt_con_draw_vc(struct kmsvt_con *con, struct vc_data *vc,
		       const struct kmsvt_con_font *font, const struct kmsvt_con_back *back,
		       u32 banner)
{
	if ((con->shown_vc != vc->vc_num || con->shown_font != font ||
	     con->shown_banner != banner ||
	     con->shown_cols != kmsvt_con_cols(con, font) ||
	     con->shown_rows != kmsvt_con_rows(con, font) ||
	     kmsvt_con_palette_changed(con, vc)) && !kmsvt_con_reset(con, vc, font, banner))
		return;
	kmsvt_con_draw_cells(con, vc, back);
}
