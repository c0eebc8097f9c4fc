/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's headers to build panic/screens.c, panic/log.c
 * and panic/qr.c on the host, for qrscreen.c.  The build forces this file
 * in (-include) and gives empty files for every <linux/...> and <drm/...>
 * header the sources name, so the sources build unchanged.
 *
 * VRAM stores (writeq/l/w/b) go to ordinary memory and are counted: under
 * QEMU's TCG each is a softmmu store, the cost that matters in the guest.
 */
#ifndef KMSVT_HOST_KSHIM_H
#define KMSVT_HOST_KSHIM_H

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define __iomem
#define noinline		__attribute__((noinline))
#define noinline_for_stack	noinline
#define __printf(a, b) __attribute__((format(printf, a, b)))

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define READ_ONCE(x)		(*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define pr_err(...)		fprintf(stderr, __VA_ARGS__)
#define NSEC_PER_USEC		1000ULL
#define NSEC_PER_SEC		1000000000ULL

/* Stores into the canvas, by width: counted, see the top of the file. */
extern u64 kshim_stores[9];

#define KSHIM_WRITE(name, type) \
static inline void name(type v, volatile void *p) \
{ \
	kshim_stores[sizeof(type)]++; \
	*(volatile type *)p = v; \
}
KSHIM_WRITE(writeb, u8)
KSHIM_WRITE(writew, u16)
KSHIM_WRITE(writel, u32)
KSHIM_WRITE(writeq, u64)

/* bitops.h */
static inline unsigned long __ffs64(u64 word)
{
	return __builtin_ctzll(word);
}

/* drm_fourcc.h */
#define kshim_fourcc(a, b, c, d) \
	((u32)(a) | ((u32)(b) << 8) | ((u32)(c) << 16) | ((u32)(d) << 24))
#define DRM_FORMAT_C8		kshim_fourcc('C', '8', ' ', ' ')
#define DRM_FORMAT_RGB565	kshim_fourcc('R', 'G', '1', '6')
#define DRM_FORMAT_XRGB1555	kshim_fourcc('X', 'R', '1', '5')
#define DRM_FORMAT_XRGB8888	kshim_fourcc('X', 'R', '2', '4')

/* font.h: the harness loads font_vga_8x16's glyphs from a file. */
struct font_desc {
	const char *name;
	unsigned int width, height, charcount;
	const void *data;
};
extern const struct font_desc font_vga_8x16;

/* string.h */
static inline char *strnstr(const char *s1, const char *s2, size_t len)
{
	size_t l2 = strlen(s2);

	if (!l2)
		return (char *)s1;
	while (len >= l2) {
		len--;
		if (!memcmp(s1, s2, l2))
			return (char *)s1;
		s1++;
	}
	return NULL;
}

static inline char *strnchr(const char *s, size_t count, int c)
{
	while (count--) {
		if (*s == (char)c)
			return (char *)s;
		if (*s++ == '\0')
			break;
	}
	return NULL;
}

int scnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

/* sysfs.h, moduleparam.h: the harness sets panic_screen through its ops. */
static inline bool sysfs_streq(const char *s1, const char *s2)
{
	size_t n1 = strcspn(s1, "\n"), n2 = strcspn(s2, "\n");

	return n1 == n2 && !memcmp(s1, s2, n1);
}

#define sysfs_emit(buf, ...)	sprintf(buf, __VA_ARGS__)

struct kernel_param;
struct kernel_param_ops {
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buf, const struct kernel_param *kp);
};

#define module_param_cb(name, ops, arg, perm) \
	const struct kernel_param_ops *kshim_param_##name = (ops)
#define MODULE_PARM_DESC(name, desc)

/* utsname.h */
struct new_utsname {
	char release[65];
};
struct new_utsname *init_utsname(void);

/* atomic.h, notifier.h, kmsg_dump.h: what struct kmsvt_panic holds. */
typedef struct {
	int counter;
} atomic_t;

struct notifier_block {
	void *notifier_call;
};

struct kmsg_dumper {
	void *dump;
	int max_reason;
};

/* The harness's log stands in for the kmsg ring buffer, a record a line. */
struct kmsg_dump_iter {
	u64 cur_seq;
	u64 next_seq;
};

void kmsg_dump_rewind(struct kmsg_dump_iter *iter);
bool kmsg_dump_get_buffer(struct kmsg_dump_iter *iter, bool syslog, char *buf, size_t size,
			  size_t *len);

#endif /* KMSVT_HOST_KSHIM_H */
