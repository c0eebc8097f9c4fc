/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QR code encoder for the panic screen.
 *
 * Byte mode, error correction level L only (the most capacity: up to 2953
 * bytes in a version 40 symbol; a panic log on a clean screen does not need
 * the extra redundancy of M, Q or H). The encoder picks the smallest
 * version that holds the data and the mask with the lowest penalty score.
 *
 * It allocates nothing, takes no locks, does not recurse and keeps under
 * 512 bytes of stack in the kernel's build (about 460; every build the
 * host tests try stays under 1 KiB): everything large lives in the
 * caller's work buffer. There is no mutable static state, so it is safe to call from the
 * panic path on any CPU, as long as each caller passes its own buffers.
 *
 * The same file builds in the kernel and on the host (tests/host/qr/).
 */
#ifndef KMSVT_PANIC_QR_H
#define KMSVT_PANIC_QR_H

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* The kernel's names; exact widths on every Linux ABI. */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

/* What stays out of line is for the kernel's stack and TCG; not needed here. */
#define noinline
#define noinline_for_stack

static inline unsigned long __ffs64(u64 word)
{
	return __builtin_ctzll(word);
}
#endif

#define KMSVT_QR_MIN_VERSION	1
#define KMSVT_QR_MAX_VERSION	40

/* Bytes that fit in a version 40-L symbol. */
#define KMSVT_QR_MAX_BYTES	2953

/* Modules per side of a symbol of version @v: 21 for 1 up to 177 for 40. */
#define KMSVT_QR_SIZE(v)	(4 * (v) + 17)
#define KMSVT_QR_MAX_SIZE	KMSVT_QR_SIZE(KMSVT_QR_MAX_VERSION)

/* Light modules the standard asks for around the symbol, on each side. */
#define KMSVT_QR_QUIET_ZONE	4

/*
 * The output is a packed bitmap, one bit per module, row after row with no
 * padding between rows: module (x, y) is bit (y * size + x), counting from
 * bit 0 (the least significant) of byte 0. A set bit is a dark module.
 * Use kmsvt_qr_module() to read it; kmsvt_qr_modules_len() gives its length
 * for one size, KMSVT_QR_MODULES_MAX (3917 bytes) is enough for any.
 */
#define KMSVT_QR_MODULES_MAX	((KMSVT_QR_MAX_SIZE * KMSVT_QR_MAX_SIZE + 7) / 8)

/* Codewords (data and error correction) in a version 40 symbol. */
#define KMSVT_QR_MAX_CODEWORDS	3706

/* A row or column of the encoder's bitmaps: 177 modules and a light border. */
#define KMSVT_QR_LINE_BYTES	24

/*
 * Work buffer: four bitmaps of the symbol (its modules and which of them
 * hold data, in rows and in columns), 1 KiB of tables, two codeword buffers
 * and up to 7 bytes to reach a word boundary. KMSVT_QR_WORK_LEN is enough
 * for any input (25435 bytes); a smaller buffer works for smaller symbols,
 * see kmsvt_qr_work_len().
 */
#define KMSVT_QR_WORK_LEN	(7 + 4 * KMSVT_QR_MAX_SIZE * KMSVT_QR_LINE_BYTES + 1024 + \
				 2 * KMSVT_QR_MAX_CODEWORDS)

/**
 * kmsvt_qr_encode() - encode bytes as a QR code symbol
 * @data: bytes to encode (may be NULL when @len is 0)
 * @len: number of bytes, at most KMSVT_QR_MAX_BYTES
 * @work: scratch buffer, clobbered
 * @work_len: size of @work, KMSVT_QR_WORK_LEN always suffices
 * @modules: output bitmap, see kmsvt_qr_modules_len()
 * @modules_len: size of @modules, KMSVT_QR_MODULES_MAX always suffices
 *
 * Level L; the smallest version that fits; the mask with the lowest
 * penalty score. Version 40 takes about 4 million instructions on x86-64
 * (docs/BENCHMARKS.md has its time in a panic); touches only @work and
 * @modules.
 *
 * Return: the symbol size in modules (21..177) on success; -E2BIG if @len
 * does not fit in version 40-L; -EINVAL for a NULL pointer; -ENOSPC if
 * @work or @modules is too small for the version the data needs.
 */
int kmsvt_qr_encode(const u8 *data, size_t len, u8 *work, size_t work_len,
		    u8 *modules, size_t modules_len);

/**
 * kmsvt_qr_max_bytes() - byte-mode capacity of a version at level L
 * @version: 1..KMSVT_QR_MAX_VERSION
 *
 * Return: the most bytes kmsvt_qr_encode() fits in that version (17 for
 * version 1, 2953 for 40), or 0 for an out-of-range version.
 */
size_t kmsvt_qr_max_bytes(int version);

/**
 * kmsvt_qr_version_for() - smallest version that holds @len bytes
 * @len: number of bytes
 *
 * Return: 1..KMSVT_QR_MAX_VERSION, or -E2BIG if @len is too long.
 */
int kmsvt_qr_version_for(size_t len);

/**
 * kmsvt_qr_work_len() - work buffer size needed for a version
 * @version: 1..KMSVT_QR_MAX_VERSION
 *
 * Return: bytes of work buffer kmsvt_qr_encode() needs when the data
 * takes that version, or 0 for an out-of-range version.
 */
size_t kmsvt_qr_work_len(int version);

/**
 * kmsvt_qr_modules_len() - bytes of module bitmap for a symbol size
 * @size: modules per side, KMSVT_QR_SIZE() of the version
 *
 * Return: the length kmsvt_qr_encode() needs in its @modules buffer.
 */
static inline size_t kmsvt_qr_modules_len(int size)
{
	return ((size_t)size * (size_t)size + 7) / 8;
}

/**
 * kmsvt_qr_module() - colour of one module
 * @modules: bitmap filled by kmsvt_qr_encode()
 * @size: symbol size it returned
 * @x: column, 0 at the left
 * @y: row, 0 at the top
 *
 * Return: true for a dark module; false for a light one or for a position
 * outside the symbol (so the quiet zone can be drawn with the same call).
 */
static inline bool kmsvt_qr_module(const u8 *modules, int size, int x, int y)
{
	u32 i;

	if (x < 0 || y < 0 || x >= size || y >= size)
		return false;
	i = (u32)y * (u32)size + (u32)x;
	return (modules[i >> 3] >> (i & 7)) & 1;
}

/**
 * kmsvt_qr_fit_version() - largest version that fits in a square of pixels
 * @pixels: side of the available square (the smaller screen dimension)
 * @scale: pixels per module, at least 1
 *
 * Counts the quiet zone of KMSVT_QR_QUIET_ZONE modules on each side. A
 * caller that wants the most log on screen takes this version, trims its
 * text to kmsvt_qr_max_bytes() of it and encodes.
 *
 * Return: 1..KMSVT_QR_MAX_VERSION, or 0 if not even version 1 fits.
 */
static inline int kmsvt_qr_fit_version(u32 pixels, u32 scale)
{
	u32 modules;

	if (!scale)
		return 0;
	modules = pixels / scale;
	if (modules < KMSVT_QR_SIZE(1) + 2 * KMSVT_QR_QUIET_ZONE)
		return 0;
	modules = (modules - 2 * KMSVT_QR_QUIET_ZONE - 17) / 4;
	return modules > KMSVT_QR_MAX_VERSION ? KMSVT_QR_MAX_VERSION : modules;
}

#endif /* KMSVT_PANIC_QR_H */
