/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside kmsvt's VT console: con.c is the console driver (the vt layer's
 * calls, the worker that draws at most once a frame, attaching to a
 * device), con_draw.c draws the VT's cells into the console's buffer,
 * con_font.c makes the fonts it draws with, con_back.c keeps the
 * scrollback.
 * Everything here is protected by the console lock.
 */
#ifndef KMSVT_CON_H
#define KMSVT_CON_H

#include <linux/fb.h>
#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/console.h>
#include <linux/vt.h>
#include <linux/workqueue.h>

struct vc_data;
struct font_desc;

/* The fonts the console takes: fbcon's limits. */
#define KMSVT_CON_FONT_MAX_WIDTH 32
#define KMSVT_CON_FONT_MAX_HEIGHT 32

/*
 * A font as the console draws it (con_font.c), shared by the VTs that use
 * it: setupcon gives every VT the same font, kept once.  @data holds
 * @charcount (256 or 512) glyphs of @height rows of @pitch bytes, the
 * leftmost pixel in the top bit.  @glyphs holds them as the screen shows
 * them, turned once when the font is made for a turned screen: @gh rows of
 * @gpitch bytes, @gw pixels wide; upright, they are @data.
 */
struct kmsvt_con_font {
	struct kref ref;
	u32 width, height, charcount, pitch;
	const u8 *data;
	u8 *own;			/* @data, when the console copied it */
	const u8 *glyphs;
	u8 *turned;			/* @glyphs, when turned */
	u32 gw, gh, gpitch;
};

/*
 * A VT's scrollback (con_back.c): @rows rows of @cols cells in @cells, a
 * ring of @size cells, @count of them kept, the newest before @head.
 * @offset rows back from the bottom are looked at (0: the VT itself).
 */
struct kmsvt_con_back {
	u32 size, cols, rows;
	u32 head, count;
	u32 offset;
	u16 cells[];
};

struct kmsvt_con_rect {
	u32 x, y, w, h;
};

struct kmsvt_con {
	struct kmsvt_device *kdev;	/* NULL while no device has the VTs */
	struct fb_info *info;		/* the buffer drawn into */
	const struct kmsvt_con_display *display;
	struct kmsvt_con_font *deflt;	/* a VT's font until it is given one */
	struct kmsvt_con_font *fonts[MAX_NR_CONSOLES];	/* VTs' own, or NULL */
	struct kmsvt_con_back *back[MAX_NR_CONSOLES];	/* VTs' scrollback, or NULL */
	int front_vc;			/* the VT the vt layer last switched to */
	int resized_vc;			/* the VT being resized, or -1 */
	u32 rotate;			/* FB_ROTATE_*, fixed while attached */
	struct irq_work kick;
	struct delayed_work draw;
	unsigned long last_draw;	/* jiffies */
	struct delayed_work blink;	/* the cursor's, while the console is shown */
	bool blink_off;			/* the cursor is in the off half of its blink */
	u64 blinks;			/* times it turned, for debugfs */

	/* What the screen shows (valid only with @shown_vc >= 0). */
	int shown_vc;
	const struct kmsvt_con_font *shown_font;
	u32 *shown;			/* cells as drawn, @shown_cols per row */
	u32 shown_cols, shown_rows;
	u32 shown_banner;		/* screen rows of the oops banner, left alone */
	u32 palette[16];		/* the VT's colours by the cells' (VGA) index, packed */
	int cursor_x, cursor_y;		/* where the cursor was drawn, or -1 */
	u32 cursor_rows;

	bool key_pressed;		/* since the worker last ran (kmsvt_con_key) */
	bool cursor_on;			/* the vt layer shows the cursor */
	bool blanked;			/* blanked by the vt layer (not for graphics) */
	bool suspended;
};

/* con_font.c */
struct kmsvt_con_font *kmsvt_con_font_builtin(const struct font_desc *desc, u32 rotate);
struct kmsvt_con_font *kmsvt_con_font_copy(const struct console_font *font, u32 vpitch,
					   u32 rotate);
void kmsvt_con_font_put(struct kmsvt_con_font *font);
bool kmsvt_con_font_same(const struct kmsvt_con_font *a, const struct kmsvt_con_font *b);
void kmsvt_con_font_export(const struct kmsvt_con_font *font, u8 *out, u32 vpitch);

/*
 * A cell for 512 glyphs (@hi) or back for 256: with 512 the glyph's ninth
 * bit takes the foreground's lowest, the colours move up one, as in
 * fbcon's set_vc_hi_font().
 */
static inline u16 kmsvt_con_hi_cell(u16 c, bool hi)
{
	return hi ? (c & 0xff00) << 1 | (c & 0xff) : (c & 0xfe00) >> 1 | (c & 0xff);
}

/* con_back.c */
struct kmsvt_con_back *kmsvt_con_back_new(u32 cells, u32 cols);
void kmsvt_con_back_free(struct kmsvt_con_back *back);
void kmsvt_con_back_push(struct kmsvt_con_back *back, const u16 *row);
const u16 *kmsvt_con_back_row(const struct kmsvt_con_back *back, u32 n);
void kmsvt_con_back_flush(struct kmsvt_con_back *back);
bool kmsvt_con_back_scroll(struct kmsvt_con_back *back, int lines);
struct kmsvt_con_back *kmsvt_con_back_relayout(const struct kmsvt_con_back *back, u32 cols,
					       u16 blank);
void kmsvt_con_back_hi_font(struct kmsvt_con_back *back, bool hi);

/* con_draw.c */
u32 kmsvt_con_text_width(const struct kmsvt_con *con);
u32 kmsvt_con_text_height(const struct kmsvt_con *con);
u32 kmsvt_con_cols(const struct kmsvt_con *con, const struct kmsvt_con_font *font);
u32 kmsvt_con_rows(const struct kmsvt_con *con, const struct kmsvt_con_font *font);
void kmsvt_con_draw_vc(struct kmsvt_con *con, struct vc_data *vc,
		       const struct kmsvt_con_font *font, const struct kmsvt_con_back *back,
		       u32 banner);

#endif /* KMSVT_CON_H */
