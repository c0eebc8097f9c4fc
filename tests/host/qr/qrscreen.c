// SPDX-License-Identifier: GPL-2.0
/*
 * Host front end for the panic screens (panic/screens.c, log.c, qr.c built
 * unchanged against kshim.h), for tests/host/qr/test_qr.py and for timing
 * the QR screen without a guest.
 *
 *   qrscreen -F FONT [-W WIDTH] [-H HEIGHT] [-b BPP] [-s SCREEN] [-n N]
 *	     [-o OUT.ppm] LOG
 *	LOG is the kernel log, one record a line (a serial log's "[ time ]"
 *	lines); FONT the 4096 bytes of the kernel's font_vga_8x16.  Draws the
 *	panic screen SCREEN (log, qr or both; default qr) as kmsvt_screen_draw()
 *	does in a panic, into a WIDTHxHEIGHT canvas (default 1024x768) of BPP
 *	32 (XRGB8888, default), 16 (RGB565) or 8 (C8) bits a pixel, N times
 *	(default 1).  Prints the median and fastest draw in microseconds and
 *	the canvas stores of one draw by width; writes the last picture as a
 *	binary PPM.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "panic/panic.h"

u64 kshim_stores[9];

static u8 font_data[256 * 16];
const struct font_desc font_vga_8x16 = { "VGA8x16", 8, 16, 256, font_data };

extern const struct kernel_param_ops *kshim_param_panic_screen;

/* The log, a record a line, newline included. */
static char *log_text;
static const char **records;
static size_t nrecords;

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 ? 0 : (size_t)n >= size ? (int)size - 1 : n;
}

struct new_utsname *init_utsname(void)
{
	static struct new_utsname u = { "6.1.0-57-amd64" };

	return &u;
}

void kmsg_dump_rewind(struct kmsg_dump_iter *iter)
{
	iter->cur_seq = 0;
	iter->next_seq = nrecords;
}

static size_t record_len(size_t i)
{
	return strchr(records[i], '\n') + 1 - records[i];
}

/* As the kernel's: the youngest records from cur_seq on that fit in @size. */
bool kmsg_dump_get_buffer(struct kmsg_dump_iter *iter, bool syslog, char *buf, size_t size,
			  size_t *len)
{
	size_t first = iter->next_seq, used = 0, i;

	while (first > iter->cur_seq && used + record_len(first - 1) <= size)
		used += record_len(--first);
	*len = 0;
	for (i = first; i < iter->next_seq; i++) {
		memcpy(buf + *len, records[i], record_len(i));
		*len += record_len(i);
	}
	return *len > 0;
}

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n;
	char *buf = malloc(cap + 1);

	if (!f || !buf) {
		perror(path);
		exit(1);
	}
	*len = 0;
	while ((n = fread(buf + *len, 1, cap - *len, f)) > 0) {
		*len += n;
		if (*len == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			if (!buf)
				exit(1);
		}
	}
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

/* Keep the log's "[ time ] text" lines: what kmsg_dump_get_buffer() gives. */
static void load_log(const char *path)
{
	size_t len, cap = 0;
	char *p, *nl;

	log_text = read_file(path, &len);
	if (len && log_text[len - 1] != '\n') {
		fprintf(stderr, "%s: no newline at the end\n", path);
		exit(1);
	}
	for (p = log_text; (nl = strchr(p, '\n')); p = nl + 1) {
		if (p[0] != '[' || !strchr(p, ']') || strchr(p, ']') > nl)
			continue;
		if (nrecords == cap) {
			cap = cap ? 2 * cap : 1024;
			records = realloc(records, cap * sizeof(*records));
			if (!records)
				exit(1);
		}
		records[nrecords++] = p;
	}
}

static void load_font(const char *path)
{
	size_t len;
	u8 *data = read_file(path, &len);

	if (len != sizeof(font_data)) {
		fprintf(stderr, "%s: %zu bytes, want %zu\n", path, len, sizeof(font_data));
		exit(1);
	}
	memcpy(font_data, data, len);
	free(data);
}

/* The canvas pixel at @p as 0xRRGGBB. */
static u32 to_rgb(const struct kmsvt_canvas *c, const u8 *p)
{
	u32 v;

	switch (c->cpp) {
	case 1:
		return *p < kmsvt_panic_ncolors ? kmsvt_panic_colors[*p] : 0xff00ff;
	case 2:
		v = p[0] | p[1] << 8;
		return ((v >> 11) * 255 / 31) << 16 | (((v >> 5) & 63) * 255 / 63) << 8 |
		       (v & 31) * 255 / 31;
	default:
		return (p[0] | p[1] << 8 | p[2] << 16) & 0xffffff;
	}
}

static void write_ppm(const struct kmsvt_canvas *c, const char *path)
{
	FILE *f = fopen(path, "wb");
	u32 x, y, rgb;

	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "P6\n%u %u\n255\n", c->width, c->height);
	for (y = 0; y < c->height; y++) {
		for (x = 0; x < c->width; x++) {
			rgb = to_rgb(c, c->base + y * c->pitch + x * c->cpp);
			fputc(rgb >> 16, f);
			fputc((rgb >> 8) & 0xff, f);
			fputc(rgb & 0xff, f);
		}
	}
	if (fclose(f)) {
		perror(path);
		exit(1);
	}
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s -F font [-W width] [-H height] [-b 32|16|8] %s\n", argv0,
		"[-s log|qr|both] [-n repeat] [-o out.ppm] log");
	exit(1);
}

int main(int argc, char **argv)
{
	static struct kmsvt_panic kp;
	struct kmsvt_canvas c = { .width = 1024, .height = 768, .cpp = 4,
				  .format = DRM_FORMAT_XRGB8888 };
	const char *screen = "qr", *out = NULL, *font = NULL;
	long bpp = 32, repeat = 1, i;
	u64 *ns, t;
	int opt;

	while ((opt = getopt(argc, argv, "F:W:H:b:s:n:o:")) != -1) {
		switch (opt) {
		case 'F':
			font = optarg;
			break;
		case 'W':
			c.width = strtoul(optarg, NULL, 0);
			break;
		case 'H':
			c.height = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			bpp = strtol(optarg, NULL, 0);
			break;
		case 's':
			screen = optarg;
			break;
		case 'n':
			repeat = strtol(optarg, NULL, 0);
			break;
		case 'o':
			out = optarg;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc - 1 || !font || repeat < 1 || !c.width || !c.height)
		usage(argv[0]);
	if (bpp == 16)
		c.format = DRM_FORMAT_RGB565;
	else if (bpp == 8)
		c.format = DRM_FORMAT_C8;
	else if (bpp != 32)
		usage(argv[0]);
	c.cpp = bpp / 8;
	c.pitch = c.width * c.cpp;
	load_font(font);
	load_log(argv[optind]);
	if (kshim_param_panic_screen->set(screen, NULL))
		return 1;
	/* 8-byte aligned, as VRAM is; filled with what no screen draws. */
	c.base = aligned_alloc(64, ((size_t)c.pitch * c.height + 63) & ~(size_t)63);
	ns = calloc(repeat, sizeof(*ns));
	if (!c.base || !ns)
		return 1;
	memset(c.base, 0x5a, (size_t)c.pitch * c.height);

	kp.reason = "sysrq triggered crash";
	for (i = 0; i < repeat; i++) {
		memset(kshim_stores, 0, sizeof(kshim_stores));
		t = now_ns();
		kmsvt_screen_draw(&kp, &c, "KERNEL PANIC");
		ns[i] = now_ns() - t;
	}
	qsort(ns, repeat, sizeof(*ns), cmp_u64);
	printf("draw us median %.1f min %.1f stores q %llu l %llu w %llu b %llu bytes %llu\n",
	       ns[repeat / 2] / 1e3, ns[0] / 1e3,
	       (unsigned long long)kshim_stores[8], (unsigned long long)kshim_stores[4],
	       (unsigned long long)kshim_stores[2], (unsigned long long)kshim_stores[1],
	       (unsigned long long)(8 * kshim_stores[8] + 4 * kshim_stores[4] +
				    2 * kshim_stores[2] + kshim_stores[1]));
	if (out)
		write_ppm(&c, out);
	free(ns);
	free(c.base);
	return 0;
}
