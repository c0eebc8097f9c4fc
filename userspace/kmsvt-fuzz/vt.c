// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-fuzz, the console: writes of random bytes and escape sequences to
 * a VT (--tty, tty2 by default), fonts of random geometry (KDFONTOP),
 * scrolling back (TIOCL_SCROLLCONSOLE, Shift+PageUp's call), switches
 * (VT_ACTIVATE, VT_WAITACTIVE under a guard), KD_GRAPHICS and KD_TEXT, and
 * resizes (TIOCSWINSZ).  Only the fuzzed VT's mode, size and font are
 * changed; main.c puts the default font back, and makes tty1 the active
 * VT, at the end.
 */
#include "fuzz.h"

#include <linux/kd.h>
#include <linux/tiocl.h>
#include <linux/vt.h>
#include <termios.h>


/* Big enough for any geometry asked (width <= 64, 128 rows, 1024 glyphs). */
static uint8_t font_buf[8 * 128 * 1024];

static int tty_fd(void)
{
	if (fz.tty < 0) {
		double t0 = now();

		fz.tty = open(fz.tty_path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		record(OP_TTY_OPEN, fz.tty < 0 ? errno : 0, t0);
	}
	return fz.tty;
}

/* ---- writes ------------------------------------------------------------ */

struct text {
	char b[2048];
	size_t n;
};

static void put(struct text *t, const char *s)
{
	size_t len = strlen(s);

	if (t->n + len < sizeof(t->b)) {
		memcpy(t->b + t->n, s, len);
		t->n += len;
	}
}

static void putf(struct text *t, const char *fmt, unsigned long long a, unsigned long long b)
{
	char s[80];

	snprintf(s, sizeof(s), fmt, a, b);
	put(t, s);
}

static unsigned long long rnd_param(void)
{
	static const unsigned long long p[] = { 0, 1, 2, 7, 9, 10, 14, 15, 16, 25, 38, 48,
						80, 255, 256, 9999, 65535, 4294967295ull };

	return one_in(2) ? rnd(100) : p[rnd(ARRAY_SIZE(p))];
}

/* CSI with up to 16 parameters, private marks and any final byte. */
static void put_csi(struct text *t)
{
	static const char finals[] = "@ABCDEFGHJKLMPXZ`abcdefghlmnpqrsu]tSTiy";
	char fin[2] = "";

	put(t, "\033[");
	if (one_in(4))
		put(t, (const char *[]){ "?", ">", "=", "[" }[rnd(4)]);
	for (int i = 0, n = rnd(one_in(8) ? 17 : 4); i < n; i++)
		putf(t, i ? ";%llu" : "%llu", rnd_param(), 0);
	fin[0] = one_in(16) ? (char)(0x20 + rnd(0x5f)) : finals[rnd(sizeof(finals) - 1)];
	put(t, fin);
}

static void put_other(struct text *t)
{
	static const char *const seqs[] = {
		"\033(0", "\033(B", "\033(U", "\033(K", "\033)0", "\033)B", "\016", "\017",
		"\033%G", "\033%@", "\033%8", "\0337", "\0338", "\033D", "\033E", "\033M",
		"\033H", "\033Z", "\033#8", "\033>", "\033=", "\033]R", "\033c", "\r\n",
		"\t", "\b", "\a", "\033[?25l", "\033[?25h", "\033[?5h", "\033[?5l",
		"\033[?3h", "\033[?7l", "\033[?7h", "\xe2\x96\x88", "\xc3", "\xf4\x90\x80\x80",
	};

	switch (rnd(4)) {
	case 0:	/* OSC: palette entries, or strings the console ignores */
		putf(t, "\033]P%llx%06llx", rnd(16), rnd64() & 0xffffff);
		break;
	case 1:	/* sizes in the xterm way, and scroll regions */
		putf(t, one_in(2) ? "\033[8;%llu;%llut" : "\033[%llu;%llur", rnd_param(),
		     rnd_param());
		break;
	default:
		put(t, seqs[rnd(ARRAY_SIZE(seqs))]);
	}
}

static void put_bytes(struct text *t)
{
	size_t n = 1 + rnd(one_in(8) ? 1024 : 64);

	if (t->n + n >= sizeof(t->b))
		return;
	if (one_in(2)) {
		rnd_fill(t->b + t->n, n);
	} else {
		for (size_t i = 0; i < n; i++)
			t->b[t->n + i] = (char)(' ' + rnd(95));
	}
	t->n += n;
}

static void op_write(void)
{
	struct text t = { .n = 0 };
	double t0;
	ssize_t r;

	for (int i = 0, n = 1 + rnd(8); i < n; i++) {
		switch (rnd(3)) {
		case 0:
			put_csi(&t);
			break;
		case 1:
			put_other(&t);
			break;
		default:
			put_bytes(&t);
		}
	}
	t0 = now();
	guard(1000);	/* the tty is O_NONBLOCK; the console lock is not */
	r = write(fz.tty, t.b, t.n);
	unguard();
	record(OP_TTY_WRITE, r < 0 ? errno : 0, t0);
}

/* ---- fonts ------------------------------------------------------------- */

static void op_font(void)
{
	struct console_font_op f = {
		.width = 1 + rnd(40), .height = 1 + rnd(40), .charcount = rnd(1025),
		.data = font_buf, .flags = one_in(4) ? KD_FONT_FLAG_DONT_RECALC : 0,
	};

	if (one_in(2)) {	/* what the console takes: up to 32x32, 256 or 512 glyphs */
		f.width = 1 + rnd(32);
		f.height = 1 + rnd(32);
		f.charcount = one_in(2) ? 256 : 512;
	}
	switch (rnd(5)) {
	case 0:
	case 1:
		f.op = KD_FONT_OP_SET;
		rnd_fill(font_buf, 4 * 32 * 512);
		gioctl(OP_KDFONTOP_SET, fz.tty, KDFONTOP, &f, 1000);
		break;
	case 2:
		f.op = one_in(2) ? KD_FONT_OP_GET : 5;	/* 5: 6.12's GET_TALL */
		gioctl(OP_KDFONTOP_GET, fz.tty, KDFONTOP, &f, 1000);
		break;
	default:
		/* SET_DEFAULT (no name: the built-in), COPY, SET_TALL, nonsense */
		f.op = (uint32_t[]){ KD_FONT_OP_SET_DEFAULT, KD_FONT_OP_COPY, 4, 6,
				     (uint32_t)rnd_val() }[rnd(5)];
		if (f.op == KD_FONT_OP_SET_DEFAULT) {	/* the default, or one by name */
			static const char *const names[] = { "VGA8x16", "VGA8x8", "TER16x32",
							     "SUN12x22", "no such font", "" };

			f.data = one_in(2) ? NULL : (uint8_t *)names[rnd(ARRAY_SIZE(names))];
		}
		gioctl(OP_KDFONTOP_OTHER, fz.tty, KDFONTOP, &f, 1000);
	}
}

/* Shift+PageUp/PageDown's call: back (negative) or forward, any distance. */
static void op_scroll(void)
{
	static const int edge[] = { 0, 1, -1, -25, 25, -100000, 100000, INT32_MIN, INT32_MAX };
	struct {
		char code;
		char pad[3];
		int32_t lines;
	} __attribute__((packed)) arg = {
		.code = TIOCL_SCROLLCONSOLE,
		.lines = one_in(2) ? edge[rnd(ARRAY_SIZE(edge))] : (int32_t)rnd(200) - 100,
	};

	gioctl(OP_TIOCL_SCROLL, fz.tty, TIOCLINUX, &arg, 1000);
}

/* ---- switches, modes, sizes -------------------------------------------- */

static unsigned long rnd_vt(void)
{
	static const unsigned long bad[] = { 0, 64, 65, 1000, (unsigned long)-1 };

	if (one_in(10))
		return bad[rnd(ARRAY_SIZE(bad))];
	return one_in(2) ? (unsigned long)fz.tty_num : 1 + rnd(3);
}

static void op_activate(void)
{
	unsigned long vt = rnd_vt();

	xioctl(OP_VT_ACTIVATE, fz.tty, VT_ACTIVATE, (void *)vt);
	if (one_in(2))
		gioctl(OP_VT_WAITACTIVE, fz.tty, VT_WAITACTIVE,
		       (void *)(one_in(4) ? rnd_vt() : vt), 50 + rnd(200));
}

static void op_mode(void)
{
	struct vt_stat st;
	int mode;

	switch (rnd(4)) {
	case 0:
		xioctl(OP_KDGETMODE, fz.tty, KDGETMODE, &mode);
		break;
	case 1:
		xioctl(OP_VT_GETSTATE, fz.tty, VT_GETSTATE, &st);
		break;
	default:
		mode = one_in(8) ? (int)rnd_val() : (int)rnd(4);	/* TEXT, GRAPHICS, TEXT0/1 */
		xioctl(OP_KDSETMODE, fz.tty, KDSETMODE, (void *)(long)mode);
	}
}

/*
 * A resize of the VT's cells.  Sizes stay under what would need an
 * allocation of more than a few hundred KiB, apart from ones refused
 * before any allocation (past 32767).
 */
static void op_winsize(void)
{
	static const unsigned short edge[] = { 0, 1, 2, 25, 80, 100, 160, 32768, 65535 };
	struct winsize ws = {
		.ws_row = one_in(2) ? edge[rnd(ARRAY_SIZE(edge))] : rnd(300),
		.ws_col = one_in(2) ? edge[rnd(ARRAY_SIZE(edge))] : rnd(300),
		.ws_xpixel = (unsigned short)rnd64(), .ws_ypixel = (unsigned short)rnd64(),
	};

	gioctl(OP_TIOCSWINSZ, fz.tty, TIOCSWINSZ, &ws, 1000);
}

void vt_step(void)
{
	static void (*const ops[])(void) = {
		op_write, op_write, op_write, op_write, op_font, op_activate, op_activate,
		op_mode, op_mode, op_winsize, op_scroll,
	};

	if (tty_fd() < 0)
		return;
	ops[rnd(ARRAY_SIZE(ops))]();
}
