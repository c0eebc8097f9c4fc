// SPDX-License-Identifier: GPL-2.0
/*
 * The panic screen: draws the kernel's last words into whatever kmsvt is
 * scanning out when the kernel panics (the console's buffer, X's, a KMS
 * client's), in that buffer's format.  This file takes the screen (a kmsg
 * dumper and a panic notifier) and times the draw; screens.c draws.
 *
 * Rules of the panic path: no allocation, no sleeping, no lock other than by
 * trylock.  Other CPUs are stopped and may hold any lock.  Everything used
 * here is allocated at probe time.  All buffers live in VRAM, which is
 * mapped once at probe, so the current scanout is always drawable; when its
 * state cannot be read safely (its lock is held, the CRTC is off), the
 * screen switches to a panic buffer reserved at the start of VRAM.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <linux/io.h>
#include <linux/kmsg_dump.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <linux/panic_notifier.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "compat.h"
#include "kmsvt_drv.h"
#include "panic.h"

static bool oops_banner;
module_param(oops_banner, bool, 0644);
MODULE_PARM_DESC(oops_banner, "draw a banner over the screen on a non-fatal oops (default off)");

/* The canvas of scanout @so: VRAM is mapped whole, once, at probe. */
static void kmsvt_panic_canvas(struct kmsvt_device *kdev, const struct kmsvt_scanout *so,
			       struct kmsvt_canvas *c)
{
	*c = (struct kmsvt_canvas){ kdev->vram + so->offset, so->pitch, so->cpp, so->format,
				    so->width, so->height };
}

/*
 * Take the screen and draw the panic screen into it: what is scanned out,
 * or with @use_reserve (or when that cannot be read) the panic buffer.
 */
static void kmsvt_panic_draw(struct kmsvt_panic *kp, const char *title, bool use_reserve)
{
	u64 t0 = ktime_get_mono_fast_ns();
	struct kmsvt_device *kdev = kp->kdev;
	struct kmsvt_scanout so;
	struct kmsvt_canvas c;

	kmsvt_scanout_take(kdev, use_reserve, kmsvt_panic_colors, kmsvt_panic_ncolors, &so);
	kmsvt_panic_canvas(kdev, &so, &c);
	if (!kmsvt_canvas_readable(&c))
		return;
	kmsvt_screen_draw(kp, &c, title);
	kp->drawn_at = ktime_get_mono_fast_ns();
	kp->draw_ns = kp->drawn_at - t0;
}

/* A non-fatal oops: a banner over what is shown, which stays KMS's. */
static void kmsvt_oops_banner(struct kmsvt_panic *kp)
{
	struct kmsvt_device *kdev = kp->kdev;
	struct kmsvt_scanout so;
	struct kmsvt_canvas c;

	if (!kmsvt_scanout_peek(kdev, &so))
		return;
	kmsvt_panic_canvas(kdev, &so, &c);
	if (!kmsvt_canvas_readable(&c))
		return;
	kmsvt_scanout_set_banner(kdev, kmsvt_screen_banner_height());
	kmsvt_screen_banner(kp, &c);
}

/*
 * From panic()'s message to the last pixel.  The message's time is printk's
 * local_clock(), which stops advancing with interrupts off when the TSC is
 * unstable (common under TCG); the draw is timed with the clocksource, and
 * the notifier's reading of both clocks links the two, to within a tick.
 */
static u64 kmsvt_since_panic(const struct kmsvt_panic *kp)
{
	u64 start;

	if (!kp->panic_ns || !kp->drawn_at)
		return 0;
	start = kp->panic_ns + (kp->notify_mono - kp->notify_local);
	return kp->drawn_at > start ? kp->drawn_at - start : 0;
}

/*
 * The timing of the panic screen, also kept where no console is needed to
 * find it: a debugger, a crash dump or the benchmark (through QEMU's
 * memsave, at the address /proc/kallsyms gives) reads it after the panic.
 * magic is written last.
 */
static struct {
	u64 draw_us;
	u64 panic_us;
	u64 magic;
} kmsvt_last_panic;

#define KMSVT_LAST_PANIC_MAGIC	0x43494e4150545653ULL	/* "SVTPANIC" read as bytes */

static void kmsvt_dump_screen(struct kmsvt_panic *kp, enum kmsg_dump_reason reason)
{
	/* Only the first CPU to get here draws; there is one screen. */
	if (reason == KMSG_DUMP_PANIC && !atomic_xchg(&kp->drawn, 1)) {
		kmsvt_pstore_panic(kp->kdev, kp->reason);
		kmsvt_panic_draw(kp, "KERNEL PANIC", false);
		kmsvt_last_panic.draw_us = div_u64(kp->draw_ns, 1000);
		kmsvt_last_panic.panic_us = div_u64(kmsvt_since_panic(kp), 1000);
		/* The times before the magic, for whoever reads it from outside. */
		smp_wmb();
		WRITE_ONCE(kmsvt_last_panic.magic, KMSVT_LAST_PANIC_MAGIC);
		pr_emerg("kmsvt: panic screen drawn in %llu us, %llu us after panic()\n",
			 kmsvt_last_panic.draw_us, kmsvt_last_panic.panic_us);
	} else if (reason == KMSG_DUMP_OOPS && READ_ONCE(oops_banner)) {
		kmsvt_oops_banner(kp);
	}
}

static void kmsvt_dump(struct kmsg_dumper *dumper, enum kmsg_dump_reason reason)
{
	struct kmsvt_panic *kp = container_of(dumper, struct kmsvt_panic, dumper);
	int idx;

	/* A device being unplugged: its BARs may be gone already. */
	if (!drm_dev_enter(&kp->kdev->drm, &idx))
		return;
	kmsvt_dump_screen(kp, reason);
	drm_dev_exit(idx);
}

#if KMSVT_KMSG_DUMP_DETAIL
static void kmsvt_kmsg_dump(struct kmsg_dumper *dumper, struct kmsg_dump_detail *detail)
{
	kmsvt_dump(dumper, detail->reason);
}
#else
static void kmsvt_kmsg_dump(struct kmsg_dumper *dumper, enum kmsg_dump_reason reason)
{
	kmsvt_dump(dumper, reason);
}
#endif

/* panic()'s notifiers run before the kmsg dump: keep the reason for the header. */
static int kmsvt_panic_notify(struct notifier_block *nb, unsigned long event, void *buf)
{
	struct kmsvt_panic *kp = container_of(nb, struct kmsvt_panic, nb);

	kp->notify_local = local_clock();
	kp->notify_mono = ktime_get_mono_fast_ns();
	kp->reason = buf;
	return NOTIFY_DONE;
}

/* The one word written to a debugfs file, white space trimmed, in *word. */
int kmsvt_debugfs_word(const char __user *ubuf, size_t len, char *buf, size_t size,
		       char **word)
{
	if (len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	*word = strim(buf);
	return 0;
}

/*
 * debugfs panic_preview: "current" draws the panic screen into the buffer
 * being scanned out (destroying what it shows), "reserve" into the reserved
 * panic buffer, "off" returns the display to KMS and drops an oops banner.
 */
static ssize_t kmsvt_preview_write(struct file *file, const char __user *ubuf, size_t len,
				   loff_t *ppos)
{
	struct kmsvt_panic *kp = file->private_data;
	char buf[16], *word;
	int ret = kmsvt_debugfs_word(ubuf, len, buf, sizeof(buf), &word);

	if (ret)
		return ret;
	if (!strcmp(word, "current") || !strcmp(word, "reserve"))
		kmsvt_panic_draw(kp, "KERNEL PANIC (preview)", word[0] == 'r');
	else if (!strcmp(word, "off"))
		kmsvt_scanout_give_back(kp->kdev);
	else
		return -EINVAL;
	return len;
}

static const struct file_operations kmsvt_preview_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = kmsvt_preview_write,
	.llseek = noop_llseek,
};

void kmsvt_panic_debugfs_init(struct kmsvt_device *kdev, struct dentry *root)
{
	debugfs_create_file("panic_preview", 0200, root, kdev->panic, &kmsvt_preview_fops);
	kmsvt_panic_test_debugfs_init(kdev, root);
}

/*
 * At unbind (PCI remove, module unload), not when the last file closes: the
 * BARs the panic screen draws into are unmapped then.
 */
static void kmsvt_panic_release(void *data)
{
	struct kmsvt_panic *kp = data;

	kmsg_dump_unregister(&kp->dumper);
	atomic_notifier_chain_unregister(&panic_notifier_list, &kp->nb);
}

int kmsvt_panic_init(struct kmsvt_device *kdev)
{
	struct kmsvt_panic *kp;
	int ret;

	kp = drmm_kzalloc(&kdev->drm, sizeof(*kp), GFP_KERNEL);
	if (!kp)
		return -ENOMEM;
	kp->kdev = kdev;
	kdev->panic = kp;
	kp->dumper.dump = kmsvt_kmsg_dump;
	kp->dumper.max_reason = KMSG_DUMP_OOPS;
	kp->nb.notifier_call = kmsvt_panic_notify;

	ret = kmsg_dump_register(&kp->dumper);
	if (ret)
		return ret;
	atomic_notifier_chain_register(&panic_notifier_list, &kp->nb);
	return devm_add_action_or_reset(kdev->drm.dev, kmsvt_panic_release, kp);
}
