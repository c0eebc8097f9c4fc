// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-fuzz, /dev/fb0: every FBIO ioctl with random and edge fields,
 * unknown ioctl numbers, mmap at random offsets and lengths with writes
 * through it, and read/write/lseek anywhere, past the end too.  What this
 * changes (mode, colour map, blanking) main.c puts back at the end.
 */
#include "fuzz.h"

#include <linux/fb.h>


static uint8_t io_buf[65536];

static int fb_fd(void)
{
	if (fz.fb < 0) {
		double t0 = now();

		fz.fb = open(fz.fb_path, O_RDWR | O_CLOEXEC);
		record(OP_FB_OPEN, fz.fb < 0 ? errno : 0, t0);
	}
	return fz.fb;
}

/* Replace one field of var by an edge value. */
static void mutate_var(struct fb_var_screeninfo *v)
{
	uint32_t *field = (uint32_t *)v + rnd(sizeof(*v) / 4);

	switch (rnd(4)) {
	case 0:
		*field = (uint32_t)rnd_val();
		break;
	case 1:
		v->xres = rnd_dim();
		v->yres = rnd_dim();
		break;
	case 2:
		v->xres_virtual = one_in(2) ? v->xres : rnd_dim();
		v->yres_virtual = one_in(2) ? v->yres * (1 + rnd(3)) : rnd_dim();
		break;
	default:
		v->bits_per_pixel = (uint32_t[]){ 0, 1, 8, 15, 16, 24, 32, 33, 255 }[rnd(9)];
	}
}

/*
 * Mostly a test of the mode (FB_ACTIVATE_TEST), sometimes a real change;
 * the mode a change sets is the console's until the next one.
 */
static void op_put_var(void)
{
	static const uint32_t activate[] = {
		FB_ACTIVATE_TEST, FB_ACTIVATE_TEST, FB_ACTIVATE_NOW, FB_ACTIVATE_NXTOPEN,
		FB_ACTIVATE_NOW | FB_ACTIVATE_FORCE, FB_ACTIVATE_VBL, FB_ACTIVATE_ALL,
	};
	struct fb_var_screeninfo v;

	if (xioctl(OP_FBIOGET_VSCREENINFO, fz.fb, FBIOGET_VSCREENINFO, &v))
		return;
	for (int i = 0, n = rnd(4); i < n; i++)
		mutate_var(&v);
	v.activate = one_in(8) ? (uint32_t)rnd_val() : activate[rnd(ARRAY_SIZE(activate))];
	if (one_in(3)) {
		v.xres = one_in(2) ? 640 : 800;
		v.yres = one_in(2) ? 480 : 600;
		v.xres_virtual = v.xres;
		v.yres_virtual = v.yres;
	}
	gioctl(OP_FBIOPUT_VSCREENINFO, fz.fb, FBIOPUT_VSCREENINFO, &v, 1000);
}

static void op_info(void)
{
	struct fb_var_screeninfo v;
	struct fb_fix_screeninfo f;

	if (one_in(2)) {
		xioctl(OP_FBIOGET_VSCREENINFO, fz.fb, FBIOGET_VSCREENINFO, &v);
		return;
	}
	if (!xioctl(OP_FBIOGET_FSCREENINFO, fz.fb, FBIOGET_FSCREENINFO, &f))
		fz.fb_size = f.smem_len;
}

static void op_pan(void)
{
	struct fb_var_screeninfo v;

	if (xioctl(OP_FBIOGET_VSCREENINFO, fz.fb, FBIOGET_VSCREENINFO, &v))
		return;
	v.xoffset = one_in(2) ? 0 : (uint32_t)rnd_val();
	v.yoffset = one_in(2) ? rnd(v.yres_virtual + 2) : (uint32_t)rnd_val();
	if (one_in(4))
		v.vmode = (uint32_t)rnd_val();
	gioctl(OP_FBIOPAN_DISPLAY, fz.fb, FBIOPAN_DISPLAY, &v, 1000);
}

/* Arrays for any len the kernel may accept (it caps a map at 2^16). */
static void op_cmap(void)
{
	static uint16_t rgbt[4][65536];
	struct fb_cmap c = {
		.start = one_in(2) ? rnd(300) : (uint32_t)rnd_val(),
		.len = one_in(2) ? rnd(300) : (uint32_t)rnd_val(),
		.red = rgbt[0], .green = rgbt[1], .blue = rgbt[2],
		.transp = one_in(2) ? NULL : rgbt[3],
	};

	if (c.len > 65536)
		c.len = one_in(2) ? 65536 : c.len & 0xffff;
	if (one_in(2)) {
		xioctl(OP_FBIOGETCMAP, fz.fb, FBIOGETCMAP, &c);
		return;
	}
	rnd_fill(rgbt[rnd(4)], 2 * 256);
	xioctl(OP_FBIOPUTCMAP, fz.fb, FBIOPUTCMAP, &c);
}

static void op_blank(void)
{
	unsigned long level = one_in(4) ? (unsigned long)rnd_val() : rnd(6);

	gioctl(OP_FBIOBLANK, fz.fb, FBIOBLANK, (void *)level, 1000);
}

static void op_vsync(void)
{
	uint32_t screen = one_in(4) ? (uint32_t)rnd_val() : 0;

	gioctl(OP_FBIO_WAITFORVSYNC, fz.fb, FBIO_WAITFORVSYNC, &screen, 200);
}

/*
 * An ioctl number fbdev does not define, with a buffer the size the number
 * claims.  Known 'F' numbers (0x00..0x20) are left to the ops above, and
 * numbers of other types, which the VFS would take as its own, are not sent.
 */
static void op_unknown(void)
{
	static uint8_t arg[16384];
	unsigned int nr = 0x21 + rnd(0xdf);
	unsigned long req = _IOC(rnd(4), 'F', nr, rnd(16384));

	if (one_in(4))
		req = 0x4600 + nr;	/* the old fbdev numbers have no size bits */
	memset(arg, 0, 256);
	xioctl(OP_FB_UNKNOWN, fz.fb, req, arg);
}

static void op_mmap(void)
{
	uint64_t size = fz.fb_size ? fz.fb_size : 4096;
	size_t len = one_in(3) ? size : 1 + rnd64() % (size + 8192);
	off_t off = (off_t)4096 * (one_in(2) ? 0 : rnd64() % (size / 4096 + 3));
	double t0 = now();
	void *p;
	int sig;

	if (one_in(8))
		off = (off_t)(rnd_val() & ~4095ull);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fz.fb, off);
	record(OP_FB_MMAP, p == MAP_FAILED ? errno : 0, t0);
	if (p == MAP_FAILED)
		return;
	sig = write_mapping(p, len);
	if (sig)
		anomaly("FB_MMAP: signal %d writing the mapping (offset %#llx, length %zu, smem_len %llu)",
			sig, (unsigned long long)off, len, (unsigned long long)size);
	munmap(p, len);
}

static off_t rnd_offset(void)
{
	uint64_t size = fz.fb_size ? fz.fb_size : 4096;

	switch (rnd(4)) {
	case 0:
		return (off_t)(rnd64() % size);
	case 1:
		return (off_t)size - rnd(4);
	case 2:
		return (off_t)size + rnd(8192);
	default:
		return (off_t)(rnd_val() >> 1);
	}
}

static void op_rw(void)
{
	size_t n = one_in(2) ? rnd(4097) : rnd(sizeof(io_buf) + 1);
	off_t off = rnd_offset();
	double t0 = now();
	ssize_t r;

	switch (rnd(3)) {
	case 0:
		r = pread(fz.fb, io_buf, n, off);
		record(OP_FB_READ, r < 0 ? errno : 0, t0);
		break;
	case 1:
		rnd_fill(io_buf, n < 4096 ? n : 4096);
		r = pwrite(fz.fb, io_buf, n, off);
		record(OP_FB_WRITE, r < 0 ? errno : 0, t0);
		break;
	default:
		r = lseek(fz.fb, off, (int[]){ SEEK_SET, SEEK_CUR, SEEK_END, 7 }[rnd(4)]);
		record(OP_FB_LSEEK, r < 0 ? errno : 0, t0);
		if (r < 0)
			break;
		t0 = now();
		if (one_in(2)) {
			r = read(fz.fb, io_buf, n);
			record(OP_FB_READ, r < 0 ? errno : 0, t0);
		} else {
			r = write(fz.fb, io_buf, n);
			record(OP_FB_WRITE, r < 0 ? errno : 0, t0);
		}
	}
}

void fb_step(void)
{
	static void (*const ops[])(void) = {
		op_put_var, op_info, op_info, op_pan, op_cmap, op_cmap, op_blank, op_vsync,
		op_unknown, op_mmap, op_mmap, op_rw, op_rw, op_rw,
	};

	if (fb_fd() < 0)
		return;
	if (one_in(500)) {	/* a new open, as each fbset or client makes */
		close(fz.fb);
		fz.fb = -1;
		return;
	}
	ops[rnd(ARRAY_SIZE(ops))]();
}
