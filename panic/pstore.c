// SPDX-License-Identifier: GPL-2.0
/*
 * The last panic, kept across a reboot: a pstore backend in the VRAM
 * layout's pstore strip.  QEMU's std-VGA keeps its VRAM across a warm reset
 * and kmsvt's mode sets do not clear it, so a panic's log written there is
 * read at the next boot, with no RAM reserved and nothing to configure.
 *
 * The kernel's pstore_zone does the work (records, compression, panic
 * writes, recovery, erase); this file gives it the strip's bytes.  The
 * strip is a head page of kmsvt's own, then pstore_zone's zones:
 *
 *   head   magic, the zones' size, what the last boot's panic said and when
 *          the newest record already announced was written; checked by a
 *          CRC, so a cold boot's VRAM, another driver's pixels or a
 *          different layout clear the strip instead of being read
 *   zones  pstore_zone's dmesg records (panics and oopses), kmsg_size each
 *
 * At probe a record the previous boot left gets one line on the console,
 * with the panic's own words when kmsvt's panic path kept them in the head.
 * pstore_zone's ops carry no context, so one device at a time is the
 * backend: the first card; the others go on without.
 */
#include <linux/crc32.h>
#include <linux/io.h>
#include <linux/kmsg_dump.h>
#include <linux/pstore_zone.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/time64.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "kmsvt_drv.h"

#define KMSVT_PSTORE_HEAD	SZ_4K
#define KMSVT_PSTORE_MAGIC	0x3153504bU	/* "KPS1" */
#define KMSVT_PSTORE_RECORD	SZ_16K		/* one record's zone */

struct kmsvt_pstore_head {
	__le32 magic;
	__le32 zones_size;
	__le64 seen_sec;	/* the newest record announced, its dump time */
	__le32 seen_nsec;
	__le32 reason_set;	/* 1: reason is the last panic's message */
	char reason[112];
	__le32 crc;		/* crc32_le over everything above */
};

/*
 * The start of a dmesg zone as pstore_zone writes it (fs/pstore/zone.c,
 * the same in 6.1 and 6.12): struct psz_buffer, then at its data struct
 * psz_kmsg_header.  Read only to say at boot which record is the previous
 * boot's.
 */
struct kmsvt_psz_buffer {
	u32 sig;
	u32 datalen;
	u32 start;
};

struct kmsvt_psz_kmsg {
	u32 magic;
	struct timespec64 time;
	bool compressed;
	u32 counter;
	u32 reason;
};

#define KMSVT_PSZ_SIG		0x43474244U	/* PSZ_SIG ^ PSTORE_TYPE_DMESG (0) */
#define KMSVT_PSZ_KMSG_MAGIC	0x4dfc3ae5U

static struct kmsvt_device *kmsvt_pstore_dev;
static DEFINE_MUTEX(kmsvt_pstore_lock);

static u8 __iomem *kmsvt_pstore_zones(struct kmsvt_device *kdev)
{
	return kdev->vram + kdev->layout.pstore_start + KMSVT_PSTORE_HEAD;
}

static u64 kmsvt_pstore_zones_size(struct kmsvt_device *kdev)
{
	return kdev->layout.pstore_size - KMSVT_PSTORE_HEAD;
}

/* pstore_zone's offsets are the zones' own; anything outside is refused. */
static bool kmsvt_pstore_range(size_t size, loff_t off)
{
	struct kmsvt_device *kdev = kmsvt_pstore_dev;

	return kdev && off >= 0 && size <= kmsvt_pstore_zones_size(kdev) &&
	       off <= kmsvt_pstore_zones_size(kdev) - size;
}

static ssize_t kmsvt_pstore_read(char *buf, size_t size, loff_t off)
{
	if (!kmsvt_pstore_range(size, off))
		return -EINVAL;
	memcpy_fromio(buf, kmsvt_pstore_zones(kmsvt_pstore_dev) + off, size);
	return size;
}

/*
 * Also what pstore_zone calls for an oops, with interrupts off: a copy into
 * VRAM, nothing that sleeps.  drm_dev_enter() keeps an unplugged device's
 * BAR out of it.
 */
static ssize_t kmsvt_pstore_write(const char *buf, size_t size, loff_t off)
{
	int idx;

	if (!kmsvt_pstore_range(size, off))
		return -EINVAL;
	if (!drm_dev_enter(&kmsvt_pstore_dev->drm, &idx))
		return -ENODEV;
	memcpy_toio(kmsvt_pstore_zones(kmsvt_pstore_dev) + off, buf, size);
	drm_dev_exit(idx);
	return size;
}

/* In panic(): the same copy, part of the panic path (panic.c's rules). */
static ssize_t kmsvt_pstore_panic_write(const char *buf, size_t size, loff_t off)
{
	return kmsvt_pstore_write(buf, size, off);
}

/* The head's CRC: over everything before its crc field. */
static u32 kmsvt_pstore_head_sum(const struct kmsvt_pstore_head *h)
{
	return crc32_le(0, (const u8 *)h, offsetof(struct kmsvt_pstore_head, crc));
}

static bool kmsvt_pstore_head_valid(struct kmsvt_device *kdev, const struct kmsvt_pstore_head *h)
{
	return le32_to_cpu(h->magic) == KMSVT_PSTORE_MAGIC &&
	       le32_to_cpu(h->zones_size) == kmsvt_pstore_zones_size(kdev) &&
	       le32_to_cpu(h->crc) == kmsvt_pstore_head_sum(h);
}

static void kmsvt_pstore_head_write(struct kmsvt_device *kdev, struct kmsvt_pstore_head *h)
{
	h->crc = cpu_to_le32(kmsvt_pstore_head_sum(h));
	memcpy_toio(kdev->vram + kdev->layout.pstore_start, h, sizeof(*h));
}

/*
 * The panic path (panic.c's kmsg dump): panic()'s message into the head,
 * for the next boot's notice.  A copy into VRAM and a CRC; the head is read
 * at probe only.
 */
void kmsvt_pstore_panic(struct kmsvt_device *kdev, const char *reason)
{
	struct kmsvt_pstore_head h;

	if (kmsvt_pstore_dev != kdev)
		return;
	memcpy_fromio(&h, kdev->vram + kdev->layout.pstore_start, sizeof(h));
	if (!kmsvt_pstore_head_valid(kdev, &h))
		return;
	strscpy(h.reason, reason ?: "", sizeof(h.reason));
	h.reason_set = cpu_to_le32(1);
	kmsvt_pstore_head_write(kdev, &h);
}

/* The newest dmesg record in the zones newer than @h's, or -1. */
static int kmsvt_pstore_newest(struct kmsvt_device *kdev, const struct kmsvt_pstore_head *h,
			       struct kmsvt_psz_kmsg *out)
{
	struct timespec64 seen = {
		.tv_sec = le64_to_cpu(h->seen_sec),
		.tv_nsec = le32_to_cpu(h->seen_nsec),
	};
	u64 n = kmsvt_pstore_zones_size(kdev) / KMSVT_PSTORE_RECORD;
	struct kmsvt_psz_buffer b;
	struct kmsvt_psz_kmsg z;
	int i, newest = -1;

	for (i = 0; i < n; i++) {
		u8 __iomem *zone = kmsvt_pstore_zones(kdev) + (u64)i * KMSVT_PSTORE_RECORD;

		memcpy_fromio(&b, zone, sizeof(b));
		memcpy_fromio(&z, zone + sizeof(b), sizeof(z));
		if (b.sig != KMSVT_PSZ_SIG || !b.datalen || b.datalen > KMSVT_PSTORE_RECORD ||
		    z.magic != KMSVT_PSZ_KMSG_MAGIC || z.reason > KMSG_DUMP_OOPS ||
		    timespec64_compare(&z.time, &seen) <= 0)
			continue;
		if (newest < 0 || timespec64_compare(&z.time, &out->time) > 0) {
			*out = z;
			newest = i;
		}
	}
	return newest;
}

/*
 * One line for a record the previous boot left, then it is not new again.
 * At error level, so that a quiet boot's console shows it too.
 */
static void kmsvt_pstore_announce(struct kmsvt_device *kdev, struct kmsvt_pstore_head *h)
{
	struct kmsvt_psz_kmsg z;
	int i = kmsvt_pstore_newest(kdev, h, &z);

	if (i < 0)
		return;
	if (z.reason == KMSG_DUMP_PANIC)
		dev_err(kdev->drm.dev,
			"the previous boot ended in a kernel panic: %s; see /sys/fs/pstore/dmesg-%s-%d\n",
			le32_to_cpu(h->reason_set) ? h->reason : "(no message kept)",
			KMSVT_NAME, i);
	else
		dev_err(kdev->drm.dev, "the previous boot had an oops; see /sys/fs/pstore/dmesg-%s-%d\n",
			KMSVT_NAME, i);
	h->seen_sec = cpu_to_le64(z.time.tv_sec);
	h->seen_nsec = cpu_to_le32(z.time.tv_nsec);
	h->reason_set = 0;
	memset(h->reason, 0, sizeof(h->reason));
	kmsvt_pstore_head_write(kdev, h);
}

/* A head that is not ours: clear the strip, so that nothing in it is read. */
static void kmsvt_pstore_check_head(struct kmsvt_device *kdev)
{
	struct kmsvt_pstore_head h;

	memcpy_fromio(&h, kdev->vram + kdev->layout.pstore_start, sizeof(h));
	if (kmsvt_pstore_head_valid(kdev, &h)) {
		kmsvt_pstore_announce(kdev, &h);
		return;
	}
	memset_io(kdev->vram + kdev->layout.pstore_start, 0, kdev->layout.pstore_size);
	memset(&h, 0, sizeof(h));
	h.magic = cpu_to_le32(KMSVT_PSTORE_MAGIC);
	h.zones_size = cpu_to_le32(kmsvt_pstore_zones_size(kdev));
	kmsvt_pstore_head_write(kdev, &h);
}

#ifdef KMSVT_TEST_HOOKS
/*
 * The tests' garbage (test_hooks.c): random bytes over the zones, the first
 * with pstore_zone's signature and an impossible length and start.  The
 * head stays, so that the garbage is read at the next boot.
 */
void kmsvt_pstore_test_garbage(struct kmsvt_device *kdev)
{
	u64 off, size = kmsvt_pstore_zones_size(kdev);
	struct kmsvt_psz_buffer bad = {
		.sig = KMSVT_PSZ_SIG, .datalen = 0xfffff000, .start = 0x7fffffff,
	};
	u8 junk[256];

	if (!kdev->layout.pstore_size)
		return;
	for (off = 0; off < size; off += sizeof(junk)) {
		get_random_bytes(junk, sizeof(junk));
		memcpy_toio(kmsvt_pstore_zones(kdev) + off, junk,
			    min_t(u64, sizeof(junk), size - off));
	}
	memcpy_toio(kmsvt_pstore_zones(kdev), &bad, sizeof(bad));
}
#endif

static struct pstore_zone_info kmsvt_pstore_info = {
	.owner = THIS_MODULE,
	.name = KMSVT_NAME,
	.kmsg_size = KMSVT_PSTORE_RECORD,
	.max_reason = KMSG_DUMP_OOPS,	/* panics and oopses, as pstore_blk */
	.read = kmsvt_pstore_read,
	.write = kmsvt_pstore_write,
	.panic_write = kmsvt_pstore_panic_write,
};

static void kmsvt_pstore_release(void *data)
{
	mutex_lock(&kmsvt_pstore_lock);
	unregister_pstore_zone(&kmsvt_pstore_info);
	kmsvt_pstore_dev = NULL;
	mutex_unlock(&kmsvt_pstore_lock);
}

/*
 * At the end of probe, the console up: pstore is optional, so a strip that
 * is off, a second card or a pstore backend already there (ramoops,
 * efi-pstore, pstore.backend= naming another) is logged and probe goes on.
 */
void kmsvt_pstore_init(struct kmsvt_device *kdev)
{
	int ret;

	if (!kdev->layout.pstore_size)
		return;
	mutex_lock(&kmsvt_pstore_lock);
	if (kmsvt_pstore_dev) {
		mutex_unlock(&kmsvt_pstore_lock);
		drm_info(&kdev->drm, "pstore: kept by another card\n");
		return;
	}
	kmsvt_pstore_check_head(kdev);
	kmsvt_pstore_dev = kdev;
	kmsvt_pstore_info.total_size = kmsvt_pstore_zones_size(kdev);
	ret = register_pstore_zone(&kmsvt_pstore_info);
	if (ret)
		kmsvt_pstore_dev = NULL;
	mutex_unlock(&kmsvt_pstore_lock);
	if (ret) {
		drm_info(&kdev->drm, "pstore: not kept in VRAM (%d): another backend?\n", ret);
		return;
	}
	if (devm_add_action_or_reset(kdev->drm.dev, kmsvt_pstore_release, NULL))
		return;
	drm_info(&kdev->drm, "pstore: %llu KiB of VRAM keep the last panic\n",
		 kdev->layout.pstore_size / SZ_1K);
}
