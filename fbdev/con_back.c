// SPDX-License-Identifier: GPL-2.0
/*
 * The console's scrollback: what scrolls off the top of a VT, kept per VT
 * in a ring of cells, for Shift+PageUp/PageDown.  fbcon's and vgacon's
 * were removed in 5.9 (CVE-2020-14390, CVE-2020-28097: both scrolled
 * through the screen buffer with the font and screen size changing under
 * them).  Here the rows are plain copies of the VT's cells, a row as wide
 * as the VT; a resize lays them out again, what does not fit is cut off,
 * and nothing else ever reads them but the console's drawing.
 *
 * The ring is allocated with the VT (con_init, which may sleep), so
 * keeping a row, which the vt layer asks for from any context (printk
 * included), only copies.  Called with the console lock held.
 */
#include <linux/console.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vt_buffer.h>

#include "con.h"

/* A ring of @cells cells, as rows @cols wide; NULL if it holds no row. */
struct kmsvt_con_back *kmsvt_con_back_new(u32 cells, u32 cols)
{
	struct kmsvt_con_back *back;

	if (!cols || cells / cols == 0)
		return NULL;
	back = kvzalloc(struct_size(back, cells, cells), GFP_KERNEL);
	if (!back)
		return NULL;
	back->size = cells;
	back->cols = cols;
	back->rows = cells / cols;
	return back;
}

void kmsvt_con_back_free(struct kmsvt_con_back *back)
{
	kvfree(back);
}

/* Keep @row (@back->cols cells of a VT's screen) as the newest. */
void kmsvt_con_back_push(struct kmsvt_con_back *back, const u16 *row)
{
	u16 *to = back->cells + back->head * back->cols;
	u32 i;

	for (i = 0; i < back->cols; i++)
		to[i] = scr_readw(row + i);
	back->head = (back->head + 1) % back->rows;
	back->count = min(back->count + 1, back->rows);
}

/* The @n-th newest row kept (1 is the newest), @n at most @back->count. */
const u16 *kmsvt_con_back_row(const struct kmsvt_con_back *back, u32 n)
{
	return back->cells + ((back->head + back->rows - n) % back->rows) * back->cols;
}

/* Forget every row (ESC [ 3 J, what clear(1) sends). */
void kmsvt_con_back_flush(struct kmsvt_con_back *back)
{
	back->head = 0;
	back->count = 0;
	back->offset = 0;
}

/*
 * View @lines further back (negative) or forward, within what is kept;
 * true if the view moved.
 */
bool kmsvt_con_back_scroll(struct kmsvt_con_back *back, int lines)
{
	u32 was = back->offset;

	if (lines < 0)
		back->offset = min_t(u32, back->offset + (u32)-lines, back->count);
	else
		back->offset -= min_t(u32, back->offset, lines);
	return back->offset != was;
}

/*
 * The rows laid out @cols wide in a new ring of the same size: the newest
 * kept, each cut or padded with @blank.  NULL (and @back left as it was)
 * without memory.
 */
struct kmsvt_con_back *kmsvt_con_back_relayout(const struct kmsvt_con_back *back, u32 cols,
					       u16 blank)
{
	struct kmsvt_con_back *to = kmsvt_con_back_new(back->size, cols);
	u32 n, keep, i;

	if (!to)
		return NULL;
	keep = min(back->count, to->rows);
	for (n = keep; n >= 1; n--) {
		const u16 *row = kmsvt_con_back_row(back, n);
		u16 *dst = to->cells + to->head * cols;

		for (i = 0; i < cols; i++)
			dst[i] = i < back->cols ? row[i] : blank;
		to->head = (to->head + 1) % to->rows;
	}
	to->count = keep;
	return to;
}

/* The cells' colours moved as the VT's are for 512 glyphs or 256 (con.c). */
void kmsvt_con_back_hi_font(struct kmsvt_con_back *back, bool hi)
{
	u32 i, n = back->rows * back->cols;

	for (i = 0; i < n; i++)
		back->cells[i] = kmsvt_con_hi_cell(back->cells[i], hi);
}
