/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside kmsvt's VT console: con.c is the console driver (the vt layer's
 * calls, the worker that draws at most once a frame, attaching to a
 * device), con_draw.c draws the VT's cells into the console's buffer.
 * Everything here is protected by the console lock.
 */
#ifndef KMSVT_CON_H
#define KMSVT_CON_H

#include <linux/fb.h>
#include <linux/irq_work.h>
#include <linux/workqueue.h>

struct vc_data;

#define KMSVT_CON_FONT_MAX_HEIGHT 32
/* The one font width the console draws yet; the geometry takes font.width. */
#define KMSVT_CON_FONT_WIDTH 8

/*
 * The font: @width (KMSVT_CON_FONT_WIDTH) pixels wide, 256 glyphs of
 * @height rows of one byte each (@data: the built-in font's, or @own from
 * KDFONTOP); with the screen turned, @turned holds each glyph as the
 * screen shows it, turned once when the font or the rotation is set:
 * @turned_rows rows of 4 bytes.
 */
struct kmsvt_con_font {
	u32 width;
	u32 height;
	const u8 *data;
	u8 *own;
	u8 *turned;
	u32 turned_rows;
};

struct kmsvt_con_rect {
	u32 x, y, w, h;
};

struct kmsvt_con {
	struct kmsvt_device *kdev;	/* NULL while no device has the VTs */
	struct fb_info *info;		/* the buffer drawn into */
	const struct kmsvt_con_display *display;
	struct kmsvt_con_font font;
	u32 rotate;			/* FB_ROTATE_*, fixed while attached */
	struct irq_work kick;
	struct delayed_work draw;
	unsigned long last_draw;	/* jiffies */

	/* What the screen shows (valid only with @shown_vc >= 0). */
	int shown_vc;
	u16 *shown;			/* cells as drawn, @shown_cols per row */
	u32 shown_cols, shown_rows;
	u32 shown_banner;		/* screen rows of the oops banner, left alone */
	u32 palette[16];		/* the VT's palette, in the buffer's format */
	int cursor_x, cursor_y;		/* where the cursor was drawn, or -1 */
	u32 cursor_rows;

	bool cursor_on;			/* the vt layer shows the cursor */
	bool blanked;			/* blanked by the vt layer (not for graphics) */
	bool suspended;
};

/* con_draw.c */
u32 kmsvt_con_text_height(const struct kmsvt_con *con);
u32 kmsvt_con_cols(const struct kmsvt_con *con);
u32 kmsvt_con_rows(const struct kmsvt_con *con);
int kmsvt_con_font_use(struct kmsvt_con *con, const u8 *data, u32 height, u8 *own);
void kmsvt_con_font_free(struct kmsvt_con *con);
void kmsvt_con_draw_vc(struct kmsvt_con *con, struct vc_data *vc, u32 banner);

#endif /* KMSVT_CON_H */
